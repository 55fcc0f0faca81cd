//! The reference simulator (issue 3). Empty until then.
