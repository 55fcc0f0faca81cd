//! Register allocation (later issue). What is here so far is the problem it will solve,
//! read from the analysis layer the passes share ([`problem`]).

pub mod problem;
