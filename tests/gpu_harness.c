/* The GPU kernels' device code run concurrently on the CPU: the test suite's
   concurrency harness (tests/test_gpu.py builds and runs it).

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

       gpu_harness sample|census|perturb|batch|climb BLOCKS THREADS IN OUT

   IN holds the launch's arguments, OUT receives its results (see main). */

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

#include "kernel.cu"

/* The block's shared memory, as the linker gathers it. */
extern char __start_bg_shared[], __stop_bg_shared[];

/* The launch's arguments, as IN holds them: this header, then `size` bytes:
   the shape (sample), the block (census), the pool's rows and then the
   `n_known` hashes known (perturb), the rows and then their splits (batch),
   the shape, the rules, the walks, their `history` rows a walk and their
   lengths' rows (climb: the walks, history and lengths changed in place). */
typedef struct {
    uint64_t size, seed, first, count, capacity, grab;
    int64_t min_cards, threshold, cap;
    uint64_t garbage;           /* the seed of the shared memory's garbage */
    int32_t total, ring, changes, reach, n_pool, n_known;   /* perturb, batch */
    int64_t budget, history;    /* climb: a walk's steps this launch, its late acceptance's rows */
} bg_launch;

/* The kernels' global memory, one mapping for every block. */
typedef struct {
    uint64_t next, best, n_hits;
    uint64_t lengths[BG_LENGTHS_BINS];
    uint64_t cards[BG_HISTOGRAM], tricks[BG_HISTOGRAM];
} bg_global;

static bg_launch launch;
static bg_global* global;
static unsigned char* input;
static bg_hit* hits;            /* a batch's: one result a row */
static const char* kind;

/* A climb's parts of the input, and its hits and their deals. */
static bg_walk* climb_walks;
static bg_i64* climb_history;
static bg_u32* climb_lengths;
static bg_climb_hit* climb_hits;
static bg_u8* climb_decks;

static void* run_thread(void* index) {
    bg_thread = (int)(intptr_t)index;
    bg_syncs = 0;
    if (!strcmp(kind, "sample"))
        bg_sample((const bg_shape*)input, launch.seed, launch.first, launch.count, launch.min_cards, launch.cap,
                  &global->next, global->lengths, &global->best, hits, &global->n_hits, launch.capacity);
    else if (!strcmp(kind, "census"))
        bg_census((const bg_block*)input, launch.count, launch.grab, launch.threshold, launch.cap, &global->next,
                  global->cards, global->tricks, hits, &global->n_hits, launch.capacity);
    else if (!strcmp(kind, "perturb"))
        bg_perturb(input, launch.n_pool, launch.total, launch.ring, launch.changes, launch.reach, launch.seed,
                   (const uint64_t*)(input + (size_t)launch.n_pool * (size_t)(launch.total + 1)), launch.n_known,
                   launch.first, launch.count, launch.cap, &global->next, hits, &global->n_hits, launch.capacity);
    else if (!strcmp(kind, "climb"))
        bg_climb((const bg_shape*)input, (const bg_climb_rules*)(input + sizeof(bg_shape)), launch.count,
                 launch.budget, launch.cap, climb_walks, climb_history, climb_lengths, climb_hits, climb_decks,
                 &global->n_hits, launch.capacity, &global->next);
    else
        bg_batch(input, (const int*)(input + launch.count * (uint64_t)launch.total), launch.total, launch.ring,
                 launch.count, launch.cap, &global->next, hits);
    return NULL;
}

/* One block: its shared memory filled with garbage, its threads run to the end. */
static void run_block(int block) {
    /* A block outlives no harness that was killed (by a test's timeout). */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1)
        _exit(3);
    uint64_t state = bg_stream_start(launch.garbage, (uint64_t)block);
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

/* The bytes after the header a launch of `kind` takes. */
static uint64_t expected_size(void) {
    if (!strcmp(kind, "sample"))
        return sizeof(bg_shape);
    if (!strcmp(kind, "census"))
        return sizeof(bg_block);
    if (!strcmp(kind, "perturb"))
        return (uint64_t)launch.n_pool * (uint64_t)(launch.total + 1) + 8 * (uint64_t)launch.n_known;
    if (!strcmp(kind, "climb"))
        return sizeof(bg_shape) + sizeof(bg_climb_rules) +
               launch.count * (sizeof(bg_walk) + 8 * (uint64_t)launch.history + 4 * BG_LENGTHS_BINS);
    return launch.count * ((uint64_t)launch.total + 4);
}

/* OUT: next, best, n_hits, the lengths (sample), the cards and tricks
   (census) or the walks, history and lengths (climb), then min(n_hits,
   capacity) hits (a batch: a result a row; a climb: then their deals). */
int main(int argc, char** argv) {
    kind = argc == 6 ? argv[1] : "";
    if (strcmp(kind, "sample") && strcmp(kind, "census") && strcmp(kind, "perturb") && strcmp(kind, "batch") &&
        strcmp(kind, "climb")) {
        fprintf(stderr, "usage: gpu_harness sample|census|perturb|batch|climb BLOCKS THREADS IN OUT\n");
        return 2;
    }
    int blocks = atoi(argv[2]);
    bg_threads = atoi(argv[3]);
    FILE* in = fopen(argv[4], "rb");
    if (blocks < 1 || bg_threads < 1 || bg_threads > BG_BLOCK || !in) {
        fprintf(stderr, "gpu_harness: bad blocks, threads or input\n");
        return 2;
    }
    transfer(in, &launch, sizeof launch, 0, "the launch");
    if (launch.size != expected_size()) {
        fprintf(stderr, "gpu_harness: the launch's input has the wrong size\n");
        return 2;
    }
    input = shared_map(launch.size);
    transfer(in, input, launch.size, 0, "the launch's input");
    fclose(in);
    int batch = !strcmp(kind, "batch"), climb = !strcmp(kind, "climb");
    uint64_t room = batch ? launch.count : launch.capacity;
    global = shared_map(sizeof *global);
    hits = shared_map(room * sizeof *hits);
    if (climb) {
        climb_walks = (bg_walk*)(input + sizeof(bg_shape) + sizeof(bg_climb_rules));
        climb_history = (bg_i64*)(climb_walks + launch.count);
        climb_lengths = (bg_u32*)(climb_history + launch.count * (uint64_t)launch.history);
        climb_hits = shared_map(room * sizeof *climb_hits);
        climb_decks = shared_map(room * (uint64_t)((const bg_shape*)input)->total);
    }
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
    FILE* out = fopen(argv[5], "wb");
    if (!out) {
        perror("gpu_harness: the output");
        return 3;
    }
    transfer(out, &global->next, 3 * sizeof(uint64_t), 1, "the counters");
    if (!strcmp(kind, "sample"))
        transfer(out, global->lengths, sizeof global->lengths, 1, "the lengths");
    else if (!strcmp(kind, "census")) {
        transfer(out, global->cards, sizeof global->cards, 1, "the cards");
        transfer(out, global->tricks, sizeof global->tricks, 1, "the tricks");
    } else if (climb)
        transfer(out, climb_walks, launch.size - sizeof(bg_shape) - sizeof(bg_climb_rules), 1, "the walks");
    uint64_t kept = batch ? launch.count : global->n_hits < launch.capacity ? global->n_hits : launch.capacity;
    if (climb) {
        transfer(out, climb_hits, kept * sizeof *climb_hits, 1, "the hits");
        transfer(out, climb_decks, kept * (uint64_t)((const bg_shape*)input)->total, 1, "the deals");
    } else
        transfer(out, hits, kept * sizeof *hits, 1, "the hits");
    return fclose(out) ? 3 : 0;
}
