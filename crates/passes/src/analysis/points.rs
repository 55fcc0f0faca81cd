//! Program points: every instruction's position in layout order, the instruction at each
//! position, and the positions each block spans. Live intervals are made of these
//! positions, coalescing compares them, and register allocation and scheduling will order
//! their work by them; numbered once per version of the layout (Mesa's `ip` numbering,
//! which `fs_live_variables` and the allocator share).

use index_vec::IndexVec;

use eubatch_ir::{Block, Inst, Shader};

crate::dense_index! {
    /// An instruction's position in layout order, from 0.
    pub struct Point;
}

pub struct Points {
    /// The instruction at each point.
    order: IndexVec<Point, Inst>,
    /// Each instruction's point (indexed by its number; instructions not in the layout
    /// have none).
    at: Vec<Option<Point>>,
    /// Per block: its first point and one past its last.
    blocks: IndexVec<Block, std::ops::Range<Point>>,
}

impl Points {
    pub fn compute(shader: &Shader) -> Points {
        let mut order: IndexVec<Point, Inst> = IndexVec::with_capacity(shader.num_insts());
        let mut at = vec![None; shader.insts.opcode.len()];
        let mut blocks = IndexVec::with_capacity(shader.layout.blocks.len());
        for block in shader.layout.blocks.iter() {
            let start = order.next_idx();
            for &inst in &block.insts {
                at[inst.index()] = Some(order.push(inst));
            }
            blocks.push(start..order.next_idx());
        }
        Points { order, at, blocks }
    }

    /// Every instruction, in layout order.
    pub fn order(&self) -> &[Inst] {
        self.order.as_raw_slice()
    }

    /// The instruction at `p`.
    pub fn inst(&self, p: Point) -> Inst {
        self.order[p]
    }

    /// The point of `inst`, if it is in the layout.
    pub fn of(&self, inst: Inst) -> Option<Point> {
        self.at.get(inst.index()).copied().flatten()
    }

    /// The points of block `b`'s instructions (empty for an empty block).
    pub fn block(&self, b: Block) -> std::ops::Range<Point> {
        self.blocks[b].clone()
    }

    /// How many instructions the layout holds.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_follow_the_layout() {
        let s = eubatch_ir::text::parse_shader(
            "shader \"p\" stage FS width 8 target skl
vgrf0 1x32
block0:
    mov(8) vgrf0:F, g2<8,8,1>:F
    (+f0.0) if(8) (null):UD
block1:
    add(8) vgrf0:F, vgrf0:F, 1f
block2:
    endif(8) (null):UD
    mov(8) g10<8,8,1>:F, vgrf0:F
",
        )
        .unwrap();
        let p = Points::compute(&s);
        let order: Vec<Inst> = s.layout.insts().collect();
        assert_eq!(p.order(), &order[..]);
        for (k, &inst) in order.iter().enumerate() {
            assert_eq!(p.of(inst), Some(Point::new(k as u32)));
            assert_eq!(p.inst(Point::new(k as u32)), inst);
        }
        let b = Block::from_usize;
        assert_eq!(p.block(b(0)), Point::new(0)..Point::new(2));
        assert_eq!(p.block(b(1)), Point::new(2)..Point::new(3));
        assert_eq!(p.block(b(2)), Point::new(3)..Point::new(5));
    }
}
