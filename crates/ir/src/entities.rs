//! Typed `u32` indices for the IR's entities.

index_vec::define_index_type! {
    /// An instruction: a row in the shader's instruction columns.
    pub struct Inst = u32;
    DISPLAY_FORMAT = "inst{}";
}

index_vec::define_index_type! {
    /// A basic block of the layout.
    pub struct Block = u32;
    DISPLAY_FORMAT = "block{}";
}

index_vec::define_index_type! {
    /// A virtual register.
    pub struct Vgrf = u32;
    DISPLAY_FORMAT = "vgrf{}";
}

index_vec::define_index_type! {
    /// A row in the send side table.
    pub struct SendIdx = u32;
    DISPLAY_FORMAT = "send{}";
}
