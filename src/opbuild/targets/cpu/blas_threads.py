"""One thread pool for BLAS and the kernels: OpenBLAS's parallel work runs on OpenMP's threads.

NumPy's OpenBLAS (which GEMM and convolution kernels link, compilers/blas.py) is a pthreads build with its
own worker pool, and opbuild's large loops run on OpenMP's (libgomp's) pool. With two pools on the same
cores, each pool's workers busy-wait for a while after their work ends, exactly while the other pool needs
the core: on the 2-core development machine a 3x3 convolution (im2col + GEMM) took 57 ms with both pools at
2 threads instead of 4.2 ms on one thread (docs/benchmarks.md, "Threads").

OpenBLAS (0.3.27 on) lets the program run its parallel jobs instead
(``openblas_set_threads_callback_function``): every BLAS translation unit carries :data:`BRIDGE`, whose
constructor hands OpenBLAS a callback that runs the jobs as one OpenMP parallel loop, so BLAS and the kernels
share libgomp's pool, its thread count (OpenBLAS's own count, from OPENBLAS_NUM_THREADS, else
OMP_NUM_THREADS, else every core) and its wait policy. Inside a kernel's own parallel region the BLAS call's
loop is a nested region and runs on the calling thread. The callback is process-wide: NumPy's matmul then
runs on the same pool too (same partitioning, same results). ``OPBUILD_BLAS_THREADS=openblas`` keeps
OpenBLAS's own pool; a BLAS without the setter (older than 0.3.27: a weak symbol, left unresolved) does too.

The destructor puts OpenBLAS back on its own pool when the object that registered the callback is unloaded
(the loader closes a binary that fails its symbol check), so the callback never points into unmapped code.
"""

from __future__ import annotations

BRIDGE = r"""
#if defined(OB_BLAS_THREADS_CALLBACK)
typedef void (*ob_blas_job)(int, void *, int);
typedef void (*ob_blas_threads_cb)(int, ob_blas_job, int, size_t, void *, int);
extern void OB_BLAS_THREADS_CALLBACK(ob_blas_threads_cb) __attribute__((weak));
extern char *getenv(const char *);
static void ob_blas_on_openmp(int sync, ob_blas_job job, int numjobs, size_t size, void *data, int arg) {
  (void)sync;
  #pragma omp parallel for schedule(static, 1) num_threads(numjobs)
  for (int i = 0; i < numjobs; i++) job(i, (char *)data + (size_t)i * size, arg);
}
static int ob_blas_bridged;
__attribute__((constructor)) static void ob_blas_bridge_on(void) {
  const char *own = getenv("OPBUILD_BLAS_THREADS");
#ifdef _OPENMP
  if (OB_BLAS_THREADS_CALLBACK && !(own && own[0] == 'o' && own[1] == 'p' && own[2] == 'e')) {
    OB_BLAS_THREADS_CALLBACK(ob_blas_on_openmp);
    ob_blas_bridged = 1;
  }
#else
  (void)own;
#endif
}
__attribute__((destructor)) static void ob_blas_bridge_off(void) {
  if (ob_blas_bridged && OB_BLAS_THREADS_CALLBACK) OB_BLAS_THREADS_CALLBACK(0);
}
#endif
"""
