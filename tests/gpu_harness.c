/* The GPU kernels' device code run concurrently on the CPU: the test suite's
   concurrency harness (tests/test_gpu_concurrency.py builds and runs it).

   kernel.cu is compiled here as it is for a GPU in everything a race could
   touch: a launch is several blocks of many threads; each block is a forked
   process, so that the kernels' __shared__ variables (static here) are one
   copy per block, filled with garbage before the block starts; the threads
   of a block are POSIX threads, synchronised by a real barrier; the kernels'
   global memory (the counter of deals, the histograms, the hits) is one
   mapping shared by every block, changed by real atomic operations. The
   single-thread host build (beggar._gpu_host) and the compiled engine are
   what its results are held to.

   A race can be planted by a compile flag, to show that the harness sees
   one: -DBG_RACE=1 makes the 64-bit atomic additions (to the counter of
   deals, the count of hits, the totals) plain reads and writes, with a
   yield between them, the window a GPU's warps would find (the block's own
   32-bit counters stay atomic: a queue that loses a count may never end,
   and a hang is no result to compare), -DBG_RACE=2
   drops the barrier after each of the kernels' play phases (the block's
   queue and counts are read while other threads still play).

       gpu_harness KERNEL BLOCKS THREADS GARBAGE IN OUT

   KERNEL is one of kernel.cu's. IN holds its arguments in order, as
   gpu/abi.py's KERNELS lists them: each a size (8 bytes) and that many bytes, a buffer's
   contents or a value's 8 bytes (an integer, little-endian). Each lives in
   a mapping every block shares. OUT receives every argument's bytes again
   after the launch, in the same order; GARBAGE seeds what the blocks'
   shared memory holds when they start. */

#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static __thread int bg_thread;          /* threadIdx.x */
static __thread int bg_syncs;           /* barriers this thread has met in this launch */
static int bg_threads;                  /* blockDim.x */
static pthread_barrier_t bg_barrier;    /* the block's: one per process */

static void bg_sync(void) {
#if BG_RACE == 2
    /* kernel.cu's barriers: one at the start, then three a round, the
       first of them after the round's play. */
    if (bg_syncs++ % 3 == 1)
        return;
#endif
    pthread_barrier_wait(&bg_barrier);
}

#if BG_RACE == 1
#define BG_PLAIN_ADD(p, v) __extension__ ({ __typeof__(*(p)) bg_old = *(volatile __typeof__(*(p))*)(p); \
    sched_yield(); *(volatile __typeof__(*(p))*)(p) = bg_old + (v); bg_old; })
#define BG_ADD32(p, v) __atomic_fetch_add((p), (uint32_t)(v), __ATOMIC_RELAXED)
#define BG_ADD64(p, v) BG_PLAIN_ADD((p), (uint64_t)(v))
#else
#define BG_ADD32(p, v) __atomic_fetch_add((p), (uint32_t)(v), __ATOMIC_RELAXED)
#define BG_ADD64(p, v) __atomic_fetch_add((p), (uint64_t)(v), __ATOMIC_RELAXED)
#endif

static uint64_t bg_cas64(uint64_t* p, uint64_t old, uint64_t v) {
    __atomic_compare_exchange_n(p, &old, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    return old;
}

static void bg_max64(uint64_t* p, uint64_t v) {
    uint64_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (v > old && !__atomic_compare_exchange_n(p, &old, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

/* The most threads a block here may have (the columns of its shared memory). */
#define BG_BLOCK 64
#define BG_HARNESS 1
#define BG_KERNEL static void
#define BG_SHARED static __attribute__((section("bg_shared")))
#define BG_THREAD bg_thread
#define BG_THREADS bg_threads
#define BG_SYNC() bg_sync()
#define BG_MAX64(p, v) bg_max64((p), (uint64_t)(v))
#define BG_CAS64(p, old, v) bg_cas64((p), (uint64_t)(old), (uint64_t)(v))

#include "kernel.cu"

/* The block's shared memory, as the linker gathers it. */
extern char __start_bg_shared[], __stop_bg_shared[];

/* The launch's arguments, each in a mapping every block shares. */
#define MOST_ARGUMENTS 32
static int n_arguments;
static unsigned char* argument[MOST_ARGUMENTS];
static uint64_t argument_size[MOST_ARGUMENTS];
static const char* kernel;
static uint64_t garbage;

static uint64_t value(int k) {
    uint64_t v;
    memcpy(&v, argument[k], sizeof v);
    return v;
}
#define U64(k) value(k)
#define I64(k) ((int64_t)value(k))
#define I32(k) ((int)(int64_t)value(k))
#define BUFFER(k, type) ((type*)argument[k])

/* bg_call(): the launch of `kernel` with the arguments, and BG_KERNEL_NAMES,
   written from gpu/abi.py's KERNELS by tests/test_gpu_concurrency.py. */
#include "harness_calls.h"

static const char* KERNELS[] = {BG_KERNEL_NAMES};

static void* run_thread(void* index) {
    bg_thread = (int)(intptr_t)index;
    bg_syncs = 0;
    bg_call();
    return NULL;
}

/* One block: its shared memory filled with garbage, its threads run to the end. */
static void run_block(int block) {
    /* A block outlives no harness that was killed (by a test's timeout). */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1)
        _exit(3);
    uint64_t state = bg_stream_start(garbage, (uint64_t)block);
    for (char* byte = __start_bg_shared; byte < __stop_bg_shared; byte++)
        *byte = (char)bg_next32(&state);
    pthread_t* threads = calloc((size_t)bg_threads, sizeof *threads);
    if (!threads || pthread_barrier_init(&bg_barrier, NULL, (unsigned)bg_threads))
        _exit(3);
    for (int t = 0; t < bg_threads; t++)
        if (pthread_create(&threads[t], NULL, run_thread, (void*)(intptr_t)t))
            _exit(3);
    for (int t = 0; t < bg_threads; t++)
        pthread_join(threads[t], NULL);
    _exit(0);
}

static void* shared_map(size_t size) {
    void* at = mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (at == MAP_FAILED) {
        perror("gpu_harness: mmap");
        exit(3);
    }
    return at;
}

static void transfer(FILE* file, void* data, size_t size, int writing, const char* what) {
    size_t done = writing ? fwrite(data, 1, size, file) : fread(data, 1, size, file);
    if (done != size) {
        fprintf(stderr, "gpu_harness: cannot %s %s\n", writing ? "write" : "read", what);
        exit(3);
    }
}

int main(int argc, char** argv) {
    int known = 0;
    kernel = argc == 7 ? argv[1] : "";
    for (size_t k = 0; k < sizeof KERNELS / sizeof KERNELS[0]; k++)
        known |= !strcmp(kernel, KERNELS[k]);
    if (!known) {
        fprintf(stderr, "usage: gpu_harness KERNEL BLOCKS THREADS GARBAGE IN OUT\n");
        return 2;
    }
    int blocks = atoi(argv[2]);
    bg_threads = atoi(argv[3]);
    garbage = strtoull(argv[4], NULL, 10);
    FILE* in = fopen(argv[5], "rb");
    if (blocks < 1 || bg_threads < 1 || bg_threads > BG_BLOCK || !in) {
        fprintf(stderr, "gpu_harness: bad blocks, threads or input\n");
        return 2;
    }
    uint64_t size;
    while (fread(&size, 8, 1, in) == 1) {
        if (n_arguments == MOST_ARGUMENTS) {
            fprintf(stderr, "gpu_harness: more than %d arguments\n", MOST_ARGUMENTS);
            return 2;
        }
        argument_size[n_arguments] = size;
        argument[n_arguments] = shared_map(size);
        transfer(in, argument[n_arguments], size, 0, "an argument");
        n_arguments++;
    }
    fclose(in);
    pid_t* children = calloc((size_t)blocks, sizeof *children);
    fflush(NULL);
    for (int b = 0; b < blocks; b++) {
        children[b] = fork();
        if (children[b] < 0) {
            perror("gpu_harness: fork");
            return 3;
        }
        if (children[b] == 0)
            run_block(b);
    }
    int failed = 0;
    for (int b = 0; b < blocks; b++) {
        int status;
        if (waitpid(children[b], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
            failed = 1;
    }
    if (failed) {
        fprintf(stderr, "gpu_harness: a block failed\n");
        return 3;
    }
    FILE* out = fopen(argv[6], "wb");
    if (!out) {
        perror("gpu_harness: the output");
        return 3;
    }
    for (int k = 0; k < n_arguments; k++)
        transfer(out, argument[k], argument_size[k], 1, "an argument");
    return fclose(out) ? 3 : 0;
}
