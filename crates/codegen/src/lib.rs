//! Code generation: Mesa disassembly reader and binary encoder (issue 3 and later). Empty until then.
