//! eubatch's IR: a data-oriented representation of Intel EU shaders.
//!
//! * [`shader`]: instructions as struct-of-arrays columns with typed indices, one operand
//!   pool, a send side table, the VGRF table with per-component layouts ([`vgrf`]) and the
//!   block layout apart from the instruction data.
//! * [`text`]: eubatch's own text format, printed and parsed with an exact round trip.
//! * [`import`]: Mesa's back-end dumps (22.3 scalar and vec4, 25.0) as they are.
//! * [`builder`]: how passes emit instructions, sizes derived. [`raw_move`]: which moves
//!   copy bits.
//! * [`verify`]: the verifier. [`cfg`]: the control-flow graph. [`target`]: hardware facts.

pub mod builder;
pub mod cfg;
pub mod df_align16;
pub mod entities;
pub mod error;
pub mod generate;
pub mod generator_expanded;
pub mod import;
pub mod latency;
pub mod message;
pub mod opcode;
pub mod operand;
pub mod raw_move;
pub mod region_rules;
pub mod shader;
pub mod size_read;
pub mod subgroup;
pub mod target;
pub mod text;
pub mod thread_inputs;
pub mod thread_payload;
pub mod types;
pub mod verify;
pub mod vgrf;
pub mod width_rules;

pub use builder::Builder;
pub use entities::{Block, Inst, SendIdx, Vgrf};
pub use opcode::Opcode;
pub use operand::{Mods, Operand, RegFile, Region};
pub use shader::{Backend, Control, Shader, Stage};
pub use target::{Gen, Target};
pub use types::Type;
pub use vgrf::VgrfLayout;
