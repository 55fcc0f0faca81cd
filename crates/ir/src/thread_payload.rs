//! The scalar fields of a thread's payload that Mesa's scalar back end reads by position:
//! dwords of the thread header `g0` and of the fragment payload `g1`/`g2`, as the gen7-9
//! hardware delivers them and Mesa 22.3 names them (brw_fs_thread_payload.cpp,
//! brw_fs.cpp, brw_fs_nir.cpp). Mesa 22.3's printer drops the sub-register of such a read
//! (`g0<0>:UD` for g0.6), so the importer puts them back from these
//! ([`crate::import::payload_scalars`]); the simulator draws every payload dword from its
//! seed, so a read at the wrong dword is a different input.

/// Dwords of `g0` holding a compute thread's work-group ID x, y and z: r0.1, r0.6 and
/// r0.7 (brw_fs.cpp `fs_visitor::emit_work_group_id_setup`; PRM Vol. 2d "Media/GPGPU
/// thread payload", R0.1 Thread Group ID X, R0.6 Y, R0.7 Z).
pub const CS_WORK_GROUP_ID_DWORDS: [u32; 3] = [1, 6, 7];

/// The dword of `g0` that Mesa masks with an immediate in a compute or tessellation
/// control shader: r0.2, holding the barrier ID (brw_fs_visitor.cpp `emit_barrier`,
/// `emit_tcs_barrier`) and a TCS thread's instance number, bits 23:17 before gen11
/// (brw_fs.cpp `fs_visitor::run_tcs`, "Get instance number from g0.2").
pub const R0_BARRIER_AND_INSTANCE_DWORD: u32 = 2;

/// The dword of `g0` holding the primitive ID of a single-patch tessellation control
/// thread and of a tessellation evaluation thread: r0.1 (brw_fs_thread_payload.cpp
/// `tcs_thread_payload`, `tes_thread_payload`: `primitive_id = brw_vec1_grf(0, 1)`).
pub const TESS_PRIMITIVE_ID_DWORD: u32 = 1;

/// The vector immediate by which Mesa shifts the pixel-mask byte of the fragment payload
/// to give each channel its own bit for `gl_HelperInvocation`: `0x76543210V`, reading
/// `stride(brw_vec1_grf(1 + i, 7):UB, 1, 8, 0)` for each 16 channels `i` (brw_fs_nir.cpp
/// `emit_system_values_block`, `nir_intrinsic_load_helper_invocation`).
pub const HELPER_INVOCATION_SHIFTS: u64 = 0x7654_3210;

/// The vector immediate by which Mesa shifts the sample-ID byte pairs of the fragment
/// payload on gen8+: `0x44440000V`, reading `stride(brw_vec1_grf(1 + i, 0):UB, 1, 8, 0)`
/// (brw_fs.cpp `fs_visitor::emit_sampleid_setup`).
pub const SAMPLE_ID_SHIFTS: u64 = 0x4444_0000;

/// The registers holding a single-patch tessellation control thread's input-vertex (ICP)
/// URB handles: r1-r4, one dword per vertex, vertex v in r(1 + v / 8).(v % 8)
/// (brw_fs_thread_payload.cpp `tcs_thread_payload`: "r1-r4 contain the ICP handles",
/// `icp_handle_start = brw_ud8_grf(1, 0)`). A read by constant index is
/// `MOV(icp_handle, component(icp_handle_start, vertex))` (brw_fs_nir.cpp
/// `get_tcs_single_patch_icp_handle`), which Mesa 22.3 prints `g1<0>:UD`..`g4<0>:UD`:
/// the register is kept (component() carries into the register number), the dword is
/// not, and the vertex is a NIR constant the dump does not show.
pub const TCS_SINGLE_PATCH_ICP_HANDLE_REGS: std::ops::RangeInclusive<u32> = 1..=4;

/// The register holding an instanced geometry thread's input-vertex URB handles: r2, or
/// r3 when the primitive ID is in the payload (brw_fs_thread_payload.cpp
/// `gs_thread_payload`: r1 output URB handles, then r2 primitive ID when
/// `include_primitive_id`, then `icp_handle_start`). With more than one invocation each
/// vertex has a dword of it and a read by constant index is `MOV(icp_handle,
/// component(icp_handle_start, vertex))` (brw_fs_nir.cpp `emit_gs_input_load`; the
/// largest input primitive, triangles with adjacency, has six vertices: one register),
/// printed `g2<0>:UD` or `g3<0>:UD`. A single-invocation GS reads whole registers
/// (`offset(start, bld, vertex)`, printed without `<0>`).
pub const GS_INSTANCED_ICP_HANDLE_REGS: [u32; 2] = [2, 3];
