//! Optimization and lowering passes (issues 4 and 7). Empty until then.
