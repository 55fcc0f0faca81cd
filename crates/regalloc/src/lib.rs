//! Register allocation (later issue). Empty until then.
