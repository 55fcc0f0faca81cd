//! eubatch's driver as a library: the commands of the `eubatch` binary, and the corpus
//! driver (`compile`, `parallel`) that the benchmarks in `perf` measure.

pub mod check;
pub mod compile;
pub mod crosscheck;
pub mod df_table;
pub mod mesa_stats;
pub mod parallel;
pub mod pre_ra;
pub mod report;
pub mod report_html;
pub mod simd_select;
pub mod simulate;
pub mod stats;
pub mod urb_match;
