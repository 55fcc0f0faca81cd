//! Repeated constant loads: a pull-constant load (`varying_pull_const_logical`,
//! `uniform_pull_const`) that reads the same surface at the same offsets as an earlier one
//! in its block, in the same channels, is dropped and its result's readers read the earlier
//! result instead. Constant buffers do not change while a shader runs, so the two load the
//! same data. (Mesa's `opt_cse_local` does this for these opcodes, copying the earlier
//! result with a LOAD_PAYLOAD that coalescing then removes; renaming skips the copy.)
//!
//! Rules that limit it: both results are whole VGRFs of one layout, each written by that
//! load alone in the whole shader; the block is in no loop (a reader in a later iteration
//! could otherwise see the earlier load's newer value before the dropped one would have
//! run); no predicate; a VGRF source of the earlier load written in between ends the match.

use hashbrown::HashMap;

use eubatch_ir::opcode::ControlFlow;
use eubatch_ir::shader::Predicate;
use eubatch_ir::{Inst, Opcode, RegFile, Shader, Vgrf};

use crate::PassCx;

fn is_constant_load(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::VaryingPullConstLogical | Opcode::UniformPullConst | Opcode::UniformPullConstGfx7
    )
}

pub fn run(shader: &mut Shader, _cx: &mut PassCx) -> bool {
    if !shader
        .layout
        .insts()
        .any(|i| is_constant_load(shader.insts.opcode[i]))
    {
        return false;
    }
    let defs = crate::defs::Defs::compute(shader);
    // Loop depth at the start of each block.
    let mut in_loop = vec![false; shader.layout.blocks.len()];
    let mut depth = 0u32;
    for (b, block) in shader.layout.blocks.iter_enumerated() {
        in_loop[b.index()] = depth > 0;
        for &i in &block.insts {
            match shader.insts.opcode[i].control_flow() {
                ControlFlow::Do => {
                    depth += 1;
                    in_loop[b.index()] = true;
                }
                ControlFlow::While => {
                    depth = depth.saturating_sub(1);
                    in_loop[b.index()] = true;
                }
                _ => {}
            }
        }
    }
    let whole_single = |shader: &Shader, inst: Inst| {
        let dst = shader.insts.dst[inst];
        let ctl = shader.insts.control[inst];
        dst.file == RegFile::Vgrf
            && dst.offset == 0
            && ctl.predicate == Predicate::None
            && (dst.nr as usize) < defs.count.len()
            && defs.count[dst.nr as usize] == 1
            && shader.insts.size_written[inst]
                == shader.vgrfs[Vgrf::from_usize(dst.nr as usize)].size()
    };
    let mut renames: HashMap<u32, u32> = HashMap::new();
    let mut removed = hashbrown::HashSet::new();
    for (b, block) in shader.layout.blocks.iter_enumerated() {
        if in_loop[b.index()] {
            continue;
        }
        // Earlier loads still valid, with the VGRFs they read.
        let mut earlier: Vec<Inst> = Vec::new();
        for &inst in &block.insts {
            let op = shader.insts.opcode[inst];
            if is_constant_load(op) && whole_single(shader, inst) {
                let found = earlier.iter().copied().find(|&e| {
                    shader.insts.opcode[e] == op
                        && shader.insts.control[e] == shader.insts.control[inst]
                        && shader.srcs(e) == shader.srcs(inst)
                        && shader.insts.size_written[e] == shader.insts.size_written[inst]
                        && shader.vgrfs[Vgrf::from_usize(shader.insts.dst[e].nr as usize)]
                            == shader.vgrfs[Vgrf::from_usize(shader.insts.dst[inst].nr as usize)]
                });
                if let Some(e) = found {
                    renames.insert(shader.insts.dst[inst].nr, shader.insts.dst[e].nr);
                    removed.insert(inst);
                    continue;
                }
            }
            // A write to what an earlier load read ends it.
            let dst = shader.insts.dst[inst];
            if dst.file == RegFile::Vgrf {
                earlier.retain(|&e| {
                    !shader
                        .srcs(e)
                        .iter()
                        .any(|s| s.file == RegFile::Vgrf && s.nr == dst.nr)
                });
            }
            if is_constant_load(op) && whole_single(shader, inst) {
                earlier.push(inst);
            }
        }
    }
    if removed.is_empty() {
        return false;
    }
    let order: Vec<Inst> = shader.layout.insts().collect();
    for inst in order {
        for s in shader.srcs_mut(inst) {
            if s.file == RegFile::Vgrf {
                if let Some(&to) = renames.get(&s.nr) {
                    s.nr = to;
                }
            }
        }
    }
    for block in shader.layout.blocks.iter_mut() {
        block.insts.retain(|i| !removed.contains(i));
    }
    true
}
