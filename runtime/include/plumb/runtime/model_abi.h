//===- runtime/include/plumb/runtime/model_abi.h - Compiled model ABI -*- C++ -*-===//
//
// Part of Plumb. The C interface between a compiled model (the shared library
// `plumb compile` builds from emitted C++ or CUDA) and the host that runs it
// (`plumb run`). The same hook serves the interpreter, so traces, fault
// injection and tensor capture work identically on both paths.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_MODEL_ABI_H
#define PLUMB_RUNTIME_MODEL_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PLUMB_MODEL_ABI_VERSION 1

/// A dense row-major tensor: dtype codes as in cast.h (1 f32, 2 i64, 3 i32,
/// 4 bool as one byte per element).
typedef struct plumb_tensor_view {
  int32_t dtype;
  int32_t rank;
  const int64_t *shape;
  void *data;
} plumb_tensor_view;

/// Called after node `node_index` (its canonical index, see
/// include/plumb/Support/Nodes.h) computed its results and before any later
/// node reads them. The hook may read them (traces) or change them (fault
/// injection for tests); a change propagates to later nodes.
typedef void (*plumb_node_hook)(void *user, int64_t node_index,
                                int32_t num_results,
                                const plumb_tensor_view *results);

/// Traced runs (see plumb_model_run_traced): returns once the caller no
/// longer reads the results of nodes 0..node_index (it may help hashing
/// meanwhile).
typedef void (*plumb_node_fence)(void *user, int64_t node_index);

/// Entry points every compiled model exports:
///   int32_t plumb_model_abi_version(void);         returns PLUMB_MODEL_ABI_VERSION
///   const char *plumb_model_graph_hash(void);       64 hex digits
///   int32_t plumb_model_run(const void *weights,    weights.bin mapped in memory
///                           const plumb_tensor_view *inputs,
///                           plumb_tensor_view *outputs,  data preallocated by caller
///                           plumb_node_hook hook, void *user,  hook may be NULL
///                           char *err, size_t err_len);
/// plumb_model_run returns 0 on success, non-zero with a message in err.
/// Models Plumb emits also export (optional for hosts to call)
///   void plumb_model_set_threads(int32_t n);        kernel threads of the
///                                                   model's own runtime copy
///   int32_t plumb_model_trace_lag(void);            L, the largest lag, see below
///   int32_t plumb_model_run_traced(const void *weights,
///                                  const plumb_tensor_view *inputs,
///                                  plumb_tensor_view *outputs,
///                                  plumb_node_hook hook, plumb_node_fence fence,
///                                  void *user, char *err, size_t err_len);
/// plumb_model_run_traced calls the hook (not NULL) after every node as
/// plumb_model_run does, and in addition keeps node k's results in place,
/// unchanged, until it has called fence(user, k') for some k' >= k and that
/// returned. Fences come before nodes, with increasing k', node k's at the
/// latest before node k + L + 1 (each node has its own lag, fixed at compile
/// time: docs/bundle.md). A recorder can so read results where they are,
/// behind the run, instead of copying them during the hook; fence(user, k')
/// must return only once the results of nodes 0..k' are read. Identical
/// results and hook calls to plumb_model_run.
/// CUDA models also export
///   int32_t plumb_model_run_observed(...the arguments of plumb_model_run...);
/// which calls the hook (not NULL) with every node's results as
/// plumb_model_run does, but on copies made behind the run: from another
/// thread, in node order, while later nodes may already run, every call
/// returned before the run returns. The views stay valid until the next
/// run of the model starts; changing them changes nothing (fault injection
/// needs plumb_model_run). Results and outputs are those of plumb_model_run.
/// Such a hook runs on a CUDA callback thread: it must not throw, call CUDA
/// or call into the model (the run holds the model's lock meanwhile). Where
/// the copies do not fit on the device or in pinned host memory, the model
/// falls back to downloading in the hook as plumb_model_run does.
/// Runs of one loaded model are serialised (one arena per model).
typedef int32_t (*plumb_model_run_fn)(const void *weights,
                                      const plumb_tensor_view *inputs,
                                      plumb_tensor_view *outputs,
                                      plumb_node_hook hook, void *user,
                                      char *err, size_t err_len);
typedef int32_t (*plumb_model_run_traced_fn)(
    const void *weights, const plumb_tensor_view *inputs,
    plumb_tensor_view *outputs, plumb_node_hook hook, plumb_node_fence fence,
    void *user, char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif // PLUMB_RUNTIME_MODEL_ABI_H
