//! Register allocation (issue 16): one contract every allocator implements ([`Allocator`]),
//! the rules it must obey ([`constraints`]), a checker that trusts no allocator
//! ([`checker`]), and the allocators, one file each: [`linear`] (linear scan over the
//! analysis layer's live intervals, whole registers) and [`subreg`] (the same scan, values
//! smaller than a register sharing registers), which share [`scan`], and [`mesa`] (Mesa
//! 22.3's graph colouring, with its parts in `mesa/`).
//!
//! The contract, in the spirit of regalloc2's `Function` trait but sized for this IR: an
//! allocator is given a lowered scalar shader with what it may ask ([`Input`]: each VGRF's
//! size and live interval from [`problem`], the analysis layer's per-slot intervals, and the
//! shader's [`constraints::Constraints`]) and answers with an [`Allocation`]: per VGRF a
//! GRF and byte offset, nothing (never accessed), or "does not fit" — which means "spill
//! this": [`allocate_with_spills`] spills what did not fit ([`spill`], Mesa's messages per
//! generation) and allocates again until everything fits. An allocator must place every
//! spill temporary ([`constraints::SPILL_TEMPORARIES`]) and keep off reserved registers.
//!
//! Limits: what [`constraints`] models (scalar VS and FS, 128 GRFs); liveness must be
//! computable (structured control flow).

pub mod assign;
pub mod bank_conflicts;
pub mod checker;
pub mod constraints;
pub mod linear;
pub mod mesa;
pub mod problem;
pub mod register_form;
mod scan;
pub mod spill;
pub mod strategy;
pub mod subreg;
pub mod usage;

use eubatch_ir::{Shader, Vgrf};
use eubatch_passes::analysis::intervals::LiveIntervals;
use eubatch_passes::PassCx;

use constraints::{Constraints, Options, Refusal};
use problem::Problem;

/// Where one VGRF lives: byte `grf * reg_size + offset` of the register file onward.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reg {
    pub grf: u32,
    /// Byte offset inside the first register (0 for a VGRF of several registers).
    pub offset: u32,
}

impl Reg {
    /// The registers a VGRF of `layout` placed here touches: up to the end of its data
    /// ([`constraints::extent`]; the padding after it is never accessed).
    pub fn registers(
        &self,
        layout: &eubatch_ir::VgrfLayout,
        reg_size: u32,
    ) -> std::ops::Range<u32> {
        self.grf..self.grf + (self.offset + constraints::extent(layout)).div_ceil(reg_size)
    }
}

impl std::fmt::Display for Reg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "g{}.{}", self.grf, self.offset)
    }
}

/// An allocator's answer for one VGRF.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Placement {
    /// The VGRF is never accessed and takes no register.
    Unused,
    At(Reg),
    /// No register was free for it: the shader needs spills.
    NoFit,
}

/// An allocator's answer: a placement per VGRF (indexed by VGRF number).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allocation {
    pub placement: Vec<Placement>,
}

impl Allocation {
    /// `n` VGRFs, none placed.
    pub fn unused(n: usize) -> Allocation {
        Allocation {
            placement: vec![Placement::Unused; n],
        }
    }

    pub fn get(&self, v: Vgrf) -> Placement {
        self.placement
            .get(v.index())
            .copied()
            .unwrap_or(Placement::Unused)
    }

    /// The VGRFs that did not fit.
    pub fn unplaced(&self) -> impl Iterator<Item = Vgrf> + '_ {
        self.placement
            .iter()
            .enumerate()
            .filter(|(_, p)| **p == Placement::NoFit)
            .map(|(k, _)| Vgrf::from_usize(k))
    }

    /// Whether some VGRF did not fit.
    pub fn needs_spills(&self) -> bool {
        self.placement.contains(&Placement::NoFit)
    }

    /// Registers the thread uses: one past the highest register an input or a placed VGRF
    /// takes (Mesa's `grf_used`).
    pub fn grf_used(&self, shader: &Shader, c: &Constraints) -> u32 {
        let mut used = c.first_free_grf;
        for (k, p) in self.placement.iter().enumerate() {
            if let (Placement::At(r), Some(l)) = (p, shader.vgrfs.get(Vgrf::from_usize(k))) {
                used = used.max(r.registers(l, c.reg_size).end);
            }
        }
        used
    }
}

impl Allocation {
    /// Registers anything takes: the thread's inputs and every register a placed VGRF
    /// touches, each counted once (what packing values more tightly lowers, where
    /// [`Allocation::grf_used`] counts up to the end-of-thread payload at the top).
    pub fn registers_taken(&self, shader: &Shader, c: &Constraints) -> u32 {
        let mut taken = vec![false; c.grf_count as usize];
        for t in taken.iter_mut().take(c.first_free_grf as usize) {
            *t = true;
        }
        for (k, p) in self.placement.iter().enumerate() {
            if let (Placement::At(r), Some(l)) = (p, shader.vgrfs.get(Vgrf::from_usize(k))) {
                let regs = r.registers(l, c.reg_size);
                for g in regs.start..regs.end.min(c.grf_count) {
                    taken[g as usize] = true;
                }
            }
        }
        taken.iter().filter(|t| **t).count() as u32
    }

    /// Registers holding two or more values live at overlapping times (the analysis
    /// layer's VGRF intervals): what sub-register sharing costs before gen12, where the
    /// scoreboard tracks whole registers, so an access to one value waits on the others
    /// (false dependencies; PRM Vol. 7 "Register Scoreboard"). 0 for whole-register
    /// allocations; 0 when liveness cannot be computed.
    pub fn shared_registers(&self, shader: &Shader, cx: &mut PassCx, c: &Constraints) -> u32 {
        let Some(iv) = cx.intervals(shader) else {
            return 0;
        };
        // (register, start, end) of every register a placed VGRF touches, by register
        // and start: a register is shared when a value starts before an earlier one ends.
        let mut held = Vec::with_capacity(self.placement.len());
        for (k, p) in self.placement.iter().enumerate() {
            let v = Vgrf::from_usize(k);
            if let (Placement::At(r), Some(l)) = (p, shader.vgrfs.get(v)) {
                let live = iv.vgrf(shader, v);
                if live.is_empty() {
                    continue;
                }
                held.extend(
                    r.registers(l, c.reg_size)
                        .map(|g| (g, live.start, live.end)),
                );
            }
        }
        held.sort_unstable();
        let mut shared = 0;
        let mut k = 0;
        while k < held.len() {
            let g = held[k].0;
            let mut end = held[k].2;
            let mut is_shared = false;
            k += 1;
            while k < held.len() && held[k].0 == g {
                is_shared |= held[k].1 <= end;
                end = end.max(held[k].2);
                k += 1;
            }
            shared += is_shared as u32;
        }
        shared
    }
}

/// What an allocator is given.
pub struct Input<'a> {
    pub shader: &'a Shader,
    /// Per VGRF: bytes, registers and live interval.
    pub problem: &'a Problem,
    /// The analysis layer's intervals, per 4-byte slot (`intervals.access.slots` numbers
    /// them) for allocators that place parts of values.
    pub intervals: &'a LiveIntervals,
    pub constraints: &'a Constraints,
    /// The caller keeps the allocation only if every VGRF fits (a scheduling mode tried
    /// before the last, or a variant that may not spill): an allocator may stop at its
    /// first failure, leaving what it did not place `NoFit`, rather than choose what to
    /// spill.
    pub only_if_fits: bool,
}

/// A register allocator: one file per allocator, listed once in [`ALLOCATORS`] and chosen
/// by name ([`by_name`]). `Send`: a driver thread keeps one from shader to shader, with
/// whatever storage it reuses (the `mesa` allocator's graph).
pub trait Allocator: Send {
    /// Places the VGRFs of `input.shader`. A VGRF left `NoFit` is one to spill
    /// ([`allocate_with_spills`] spills it and asks again); spill temporaries
    /// (`constraints.unspillable`) must be placed and reserved registers
    /// (`constraints.reserved`, `eot_only`) avoided; the answer must pass
    /// [`checker::check`].
    fn allocate(&mut self, input: &Input<'_>) -> Allocation;
}

/// One allocator of [`ALLOCATORS`]: its name, what it is, and how to make one.
pub struct Registered {
    /// As `--regalloc NAME` spells it.
    pub name: &'static str,
    /// One line for `--help` and reports.
    pub summary: &'static str,
    pub make: fn() -> Box<dyn Allocator>,
}

/// Every allocator, once: adding one is a file and a line here.
pub const ALLOCATORS: &[Registered] = &[
    Registered {
        name: "linear",
        summary: "linear scan over live intervals, whole registers",
        make: || Box::new(linear::Linear),
    },
    Registered {
        name: "mesa",
        summary: "Mesa 22.3's graph colouring (classes, optimistic simplify, round-robin select, its spill choice)",
        make: || Box::<mesa::Mesa>::default(),
    },
    Registered {
        name: "subreg",
        summary: "linear scan; values smaller than a register share registers",
        make: || Box::new(subreg::Subreg),
    },
];

/// The names of [`ALLOCATORS`], comma-separated (for messages).
pub fn allocator_names() -> String {
    ALLOCATORS
        .iter()
        .map(|a| a.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The allocator called `name`.
pub fn by_name(name: &str) -> Option<Box<dyn Allocator>> {
    ALLOCATORS
        .iter()
        .find(|a| a.name == name)
        .map(|a| (a.make)())
}

/// An allocation with the constraints it was made under.
pub struct Allocated {
    pub allocation: Allocation,
    pub constraints: Constraints,
}

/// Builds the input of `shader` (through `cx`, the analyses the passes share) and runs
/// `allocator` on it. A refusal when the rules do not cover the shader or its liveness
/// cannot be computed.
pub fn allocate(
    shader: &Shader,
    cx: &mut PassCx,
    allocator: &mut dyn Allocator,
) -> Result<Allocated, Refusal> {
    allocate_with(shader, cx, allocator, &Options::default())
}

/// [`allocate`] under `options` (a register budget).
pub fn allocate_with(
    shader: &Shader,
    cx: &mut PassCx,
    allocator: &mut dyn Allocator,
    options: &Options,
) -> Result<Allocated, Refusal> {
    allocate_input(shader, cx, allocator, options, false)
}

/// [`allocate_with`] for a caller that keeps the allocation only if everything fits
/// ([`Input::only_if_fits`]): when [`Allocation::needs_spills`], which VGRFs are left out
/// may differ from what [`allocate_with`] would leave out.
pub fn allocate_if_fits(
    shader: &Shader,
    cx: &mut PassCx,
    allocator: &mut dyn Allocator,
    options: &Options,
) -> Result<Allocated, Refusal> {
    allocate_input(shader, cx, allocator, options, true)
}

fn allocate_input(
    shader: &Shader,
    cx: &mut PassCx,
    allocator: &mut dyn Allocator,
    options: &Options,
    only_if_fits: bool,
) -> Result<Allocated, Refusal> {
    let constraints = Constraints::with(shader, options)?;
    let cfg_error = |cx: &mut PassCx| {
        cx.cfg(shader)
            .err()
            .unwrap_or_else(|| "liveness cannot be computed".into())
    };
    let Some(problem) = Problem::build(shader, cx) else {
        return Err(Refusal(format!("no liveness: {}", cfg_error(cx))));
    };
    let Some(intervals) = cx.intervals(shader) else {
        return Err(Refusal(format!("no liveness: {}", cfg_error(cx))));
    };
    let input = Input {
        shader,
        problem: &problem,
        intervals: &intervals,
        constraints: &constraints,
        only_if_fits,
    };
    let allocation = allocator.allocate(&input);
    Ok(Allocated {
        allocation,
        constraints,
    })
}

/// Allocation rounds [`allocate_with_spills`] tries before giving up: each spills every
/// VGRF left out; spill temporaries are placed first, so a round only fails again where
/// the temporaries themselves crowd out other values.
pub const MAX_SPILL_ROUNDS: u32 = 16;

/// What [`allocate_with_spills`] made.
pub struct Spilled {
    /// The shader as allocated: the input when nothing spilled, else its spilled rewrite.
    pub shader: Option<Shader>,
    pub allocated: Allocated,
    pub counts: spill::Counts,
    /// VGRFs spilled.
    pub spilled: u32,
    /// Scratch bytes the spills take (Mesa's `last_scratch`).
    pub scratch_bytes: u32,
    /// Allocation rounds run.
    pub rounds: u32,
}

impl Spilled {
    /// The shader the allocation is of.
    pub fn shader<'a>(&'a self, input: &'a Shader) -> &'a Shader {
        self.shader.as_ref().unwrap_or(input)
    }
}

/// Allocates `shader`; while VGRFs do not fit, spills them ([`spill::Spiller`]), tells the
/// analyses (`cx.invalidate`), and allocates again — at most [`MAX_SPILL_ROUNDS`] rounds.
/// Afterwards `cx` describes the returned shader. A refusal when the shader cannot be
/// allocated, when the allocator leaves a spill temporary out (never spilled again), or
/// when it still does not fit after the last round.
pub fn allocate_with_spills(
    shader: &Shader,
    cx: &mut PassCx,
    allocator: &mut dyn Allocator,
    options: &Options,
) -> Result<Spilled, Refusal> {
    let mut spilled: Option<Shader> = None;
    let mut spiller = spill::Spiller::new();
    let mut unplaced = Vec::new();
    for round in 1..=MAX_SPILL_ROUNDS {
        let cur = spilled.as_ref().unwrap_or(shader);
        let allocated = allocate_with(cur, cx, allocator, options)?;
        unplaced.clear();
        unplaced.extend(allocated.allocation.unplaced());
        if unplaced.is_empty() {
            return Ok(Spilled {
                shader: spilled,
                allocated,
                counts: spiller.counts,
                spilled: spiller.spilled,
                scratch_bytes: spiller.last_scratch,
                rounds: round,
            });
        }
        if let Some(t) = unplaced
            .iter()
            .find(|v| allocated.constraints.unspillable[v.index()])
        {
            return Err(Refusal(format!(
                "spilling: the allocator left vgrf{}, a spill temporary, without a register [{}]",
                t.index(),
                constraints::SPILL_TEMPORARIES
            )));
        }
        let next = spilled.get_or_insert_with(|| shader.clone());
        let changed = spiller.spill(next, &unplaced)?;
        cx.invalidate(changed);
    }
    Err(Refusal(format!(
        "spilling: VGRFs still do not fit after {MAX_SPILL_ROUNDS} rounds ({} spilled)",
        spiller.spilled
    )))
}
