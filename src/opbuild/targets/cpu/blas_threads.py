"""Optionally, one thread pool for BLAS and the kernels: OpenBLAS's parallel work on OpenMP's threads.

NumPy's OpenBLAS (which GEMM and convolution kernels link, compilers/blas.py) is a pthreads build with its
own worker pool, and opbuild's large loops run on OpenMP's (libgomp's) pool. OpenBLAS (0.3.27 on) lets the
program run its parallel jobs instead (``openblas_set_threads_callback_function``): every BLAS translation unit
carries :data:`BRIDGE`, whose constructor, when ``OPBUILD_BLAS_THREADS=openmp``, hands OpenBLAS a callback
that runs the jobs as one OpenMP parallel loop, so BLAS and the kernels share libgomp's pool, its thread
count (OpenBLAS's own count, from OPENBLAS_NUM_THREADS, else OMP_NUM_THREADS, else every core) and its wait
policy. Inside a kernel's own parallel region a BLAS call's loop is a nested region and runs on the calling
thread. The callback is process-wide: NumPy's matmul then runs on the same pool (same partitioning, same
results). A BLAS without the setter (older than 0.3.27: a weak symbol, left unresolved) keeps its own pool.

It is not the default: with libgomp's idle threads sleeping (the loader sets OMP_WAIT_POLICY=PASSIVE), the
two pools no longer fight, and the bridge gains nothing over OpenBLAS's own pool (docs/benchmarks.md,
"Threads", has the measurements).

The bridge is compiled in only when ``OPBUILD_BLAS_THREADS=openmp`` at build time (``-DOB_BLAS_THREADS_BRIDGE``;
the setting is in the compiler identity, hence in every key): its OpenMP loop would otherwise make every BLAS
kernel's object need libgomp, whose loading cost every warm start ~0.3 ms (a ResNet's loader floor).
A bridged object is linked ``-z nodelete`` (compilers/gcc.py): the loader closes kernels no graph uses any
more, and the callback, which any later BLAS call runs, must not point into unmapped code. The destructor,
for an object unloaded anyway (at exit), puts OpenBLAS back on its own pool.
"""

from __future__ import annotations

BRIDGE = r"""
#if defined(OB_BLAS_THREADS_CALLBACK) && defined(OB_BLAS_THREADS_BRIDGE)
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
static int ob_is_openmp(const char *s) {  /* s is "openmp" in any case (stops at the first mismatch) */
  const char *w = "openmp";
  if (!s) return 0;
  for (; *w; s++, w++)
    if ((*s | 0x20) != *w) return 0;
  return *s == 0;
}
__attribute__((constructor)) static void ob_blas_bridge_on(void) {
  const char *own = getenv("OPBUILD_BLAS_THREADS");
#ifdef _OPENMP
  if (OB_BLAS_THREADS_CALLBACK && ob_is_openmp(own)) {
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
