/* The text-only stages of steadlith-norm/1 and tttd-v1 in one pass over UTF-8 bytes.
 *
 * scan(data) walks the bytes once and writes, per word: code-point offsets, the
 * paragraph flag, the xxh3_64 symbol (docs/contract/tttd-v1.md#symbols) and the word's place in the canonical
 * text (docs/contract/normalizer.md#canonical-text), which it writes as it goes. No Python object is made per word:
 * the results are byte buffers that select.py views as numpy arrays.
 *
 * fingerprints(...) is the rolling form of the Rabin window of docs/contract/tttd-v1.md#fingerprint, with byte
 * tables that select.py derives from the polynomial (rabin.ConstMul).
 *
 * xxh3_64 is written from the published xxHash specification (doc/xxhash_spec.md,
 * "XXH3 Algorithm Description"); tests compare it with the `xxhash` package on every
 * length from 0 to 2000 bytes under both seeds the spec uses.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h> /* part of every x86-64: no runtime check needed */
#endif
#ifdef __linux__
#include <sys/mman.h>
#endif
#define HUGE_BUFFER ((Py_ssize_t)4 << 20)

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__ || !defined(__SIZEOF_INT128__)
/* The byte reads below are little-endian and the 64x64 products need a 128-bit type:
 * elsewhere the build fails here, and the optional extension leaves the numpy path. */
#error "the Steadlith kernel needs a little-endian host and a compiler with __int128"
#endif

typedef uint64_t u64;
typedef uint32_t u32;
typedef uint8_t u8;

/* ---- xxh3_64 ------------------------------------------------------------------- */

static const u64 P32_1 = 0x9E3779B1ULL, P32_2 = 0x85EBCA77ULL, P32_3 = 0xC2B2AE3DULL;
static const u64 P64_1 = 0x9E3779B185EBCA87ULL, P64_2 = 0xC2B2AE3D27D4EB4FULL;
static const u64 P64_3 = 0x165667B19E3779F9ULL, P64_4 = 0x85EBCA77C2B2AE63ULL;
static const u64 P64_5 = 0x27D4EB2F165667C5ULL;
static const u64 PMX_1 = 0x165667919E3779F9ULL, PMX_2 = 0x9FB21C651E98DF25ULL;

#define SECRET_LEN 192
static const u8 DEFAULT_SECRET[SECRET_LEN] = {
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
    0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
    0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
    0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
    0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
    0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
    0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
    0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
    0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
};

/* The secret derived for seed 1 (inputs over 240 bytes only), filled once at import. */
static u8 SEEDED_SECRET[SECRET_LEN];
static u64 SEEDED_SECRET_SEED = 1;

static inline u64 rd64(const u8 *p) { u64 v; memcpy(&v, p, 8); return v; } /* little-endian hosts */
static inline u32 rd32(const u8 *p) { u32 v; memcpy(&v, p, 4); return v; }
static inline u64 rotl64(u64 x, int r) { return (x << r) | (x >> (64 - r)); }

static inline u64 fold128(u64 a, u64 b) {
    __uint128_t m = (__uint128_t)a * b;
    return (u64)m ^ (u64)(m >> 64);
}

static inline u64 avalanche(u64 x) {
    x ^= x >> 37;
    x *= PMX_1;
    return x ^ (x >> 32);
}

static inline u64 avalanche_xxh64(u64 x) {
    x ^= x >> 33;
    x *= P64_2;
    x ^= x >> 29;
    x *= P64_3;
    return x ^ (x >> 32);
}

static inline u64 mix_step(const u8 *data, const u8 *secret, u64 seed) {
    return fold128(rd64(data) ^ (rd64(secret) + seed), rd64(data + 8) ^ (rd64(secret + 8) - seed));
}

/* The accumulators of an input over 240 bytes (the "large input" algorithm, steps 1-3). */
static void xxh3_accumulate(const u8 *in, size_t len, const u8 *secret, u64 acc[8]) {
    const u64 init[8] = {P32_3, P64_1, P64_2, P64_3, P64_4, P32_2, P64_5, P32_1};
    memcpy(acc, init, sizeof(init));
    const size_t stripes_per_block = (SECRET_LEN - 64) / 8, block = 64 * stripes_per_block;
    const size_t blocks = (len - 1) / block;
    for (size_t b = 0; b <= blocks; b++) {
        const u8 *blk = in + b * block;
        size_t stripes = b < blocks ? stripes_per_block : ((len - 1) - blocks * block) / 64;
        for (size_t s = 0; s < stripes; s++) {
            for (int i = 0; i < 8; i++) {
                u64 v = rd64(blk + 64 * s + 8 * i), key = v ^ rd64(secret + 8 * s + 8 * i);
                acc[i ^ 1] += v;
                acc[i] += (key & 0xFFFFFFFFULL) * (key >> 32);
            }
        }
        if (b < blocks) {
            for (int i = 0; i < 8; i++) {
                u64 a = acc[i];
                a ^= a >> 47;
                a ^= rd64(secret + SECRET_LEN - 64 + 8 * i);
                acc[i] = a * P32_1;
            }
        }
    }
    for (int i = 0; i < 8; i++) { /* the last 64 bytes, as a stripe of their own */
        u64 v = rd64(in + len - 64 + 8 * i), key = v ^ rd64(secret + SECRET_LEN - 71 + 8 * i);
        acc[i ^ 1] += v;
        acc[i] += (key & 0xFFFFFFFFULL) * (key >> 32);
    }
}

static u64 xxh3_merge(const u64 acc[8], const u8 *secret, u64 result) {
    for (int i = 0; i < 4; i++)
        result += fold128(acc[2 * i] ^ rd64(secret + 16 * i), acc[2 * i + 1] ^ rd64(secret + 16 * i + 8));
    return avalanche(result);
}

static u64 xxh3_long(const u8 *in, size_t len, const u8 *secret) {
    u64 acc[8];
    xxh3_accumulate(in, len, secret, acc);
    return xxh3_merge(acc, secret + 11, (u64)len * P64_1);
}

static u64 xxh3_64_over_16(const u8 *in, size_t len, u64 seed);

/* Inputs of up to 16 bytes (most words) inline; longer ones in a function of their own. */
static inline __attribute__((always_inline)) u64 xxh3_64(const u8 *in, size_t len, u64 seed) {
    const u8 *s = DEFAULT_SECRET;
    if (len > 16) return xxh3_64_over_16(in, len, seed);
    if (len > 8) {
        u64 lo = ((rd64(s + 24) ^ rd64(s + 32)) + seed) ^ rd64(in);
        u64 hi = ((rd64(s + 40) ^ rd64(s + 48)) - seed) ^ rd64(in + len - 8);
        return avalanche(len + __builtin_bswap64(lo) + hi + fold128(lo, hi));
    }
    if (len >= 4) {
        u64 modified = seed ^ ((u64)__builtin_bswap32((u32)seed) << 32);
        u64 combined = (u64)rd32(in + len - 4) | ((u64)rd32(in) << 32);
        u64 v = ((rd64(s + 8) ^ rd64(s + 16)) - modified) ^ combined;
        v ^= rotl64(v, 49) ^ rotl64(v, 24);
        v *= PMX_2;
        v ^= (v >> 35) + len;
        v *= PMX_2;
        return v ^ (v >> 28);
    }
    if (len > 0) {
        u32 combined = (u32)in[len - 1] | ((u32)len << 8) | ((u32)in[0] << 16) | ((u32)in[len >> 1] << 24);
        u64 v = ((u64)(rd32(s) ^ rd32(s + 4)) + seed) ^ (u64)combined;
        return avalanche_xxh64(v);
    }
    return avalanche_xxh64(seed ^ rd64(s + 56) ^ rd64(s + 64));
}

static u64 xxh3_64_over_16(const u8 *in, size_t len, u64 seed) {
    const u8 *s = DEFAULT_SECRET;
    if (len <= 128) {
        u64 acc = (u64)len * P64_1;
        size_t rounds = ((len - 1) >> 5) + 1;
        for (size_t i = rounds; i-- > 0;) {
            acc += mix_step(in + 16 * i, s + 32 * i, seed);
            acc += mix_step(in + len - 16 * i - 16, s + 32 * i + 16, seed);
        }
        return avalanche(acc);
    }
    if (len <= 240) {
        u64 acc = (u64)len * P64_1;
        size_t chunks = len >> 4;
        for (size_t i = 0; i < 8; i++) acc += mix_step(in + 16 * i, s + 16 * i, seed);
        acc = avalanche(acc);
        for (size_t i = 8; i < chunks; i++) acc += mix_step(in + 16 * i, s + 16 * (i - 8) + 3, seed);
        acc += mix_step(in + len - 16, s + 119, seed);
        return avalanche(acc);
    }
    if (seed == 0) return xxh3_long(in, len, DEFAULT_SECRET);
    if (seed == SEEDED_SECRET_SEED) return xxh3_long(in, len, SEEDED_SECRET);
    u8 derived[SECRET_LEN];
    for (int i = 0; i < SECRET_LEN / 16; i++) {
        u64 lo = rd64(DEFAULT_SECRET + 16 * i) + seed, hi = rd64(DEFAULT_SECRET + 16 * i + 8) - seed;
        memcpy(derived + 16 * i, &lo, 8);
        memcpy(derived + 16 * i + 8, &hi, 8);
    }
    return xxh3_long(in, len, derived);
}

/* The rolling window by carry-less multiplication, where the CPU has it (pclmulqdq;
 * checked at run time, so the build stays portable): 3 multiplications a word instead
 * of 23 table lookups, 7 of them chained through F. With t = 64 - d, G = F x^t keeps F
 * in the top bits of a word, so that reducing modulo P' = P x^t, of degree 64, is the
 * exact GF(2) Barrett reduction of a 128-bit value (q = U_hi + hi(U_hi mu), mu =
 * x^128 div P'; then U + q P' has a zero high half and is (U mod P) x^t):
 *   U   = G_(k-1) x^64 + s_k x^t + s_(k-w) (x^(64 w) mod P) x^t
 *   G_k = U mod P' = U_lo + lo(q * (P' - x^64))
 * `Clmul` holds d, the low 64 bits of P' and of mu, and (x^(64 w) mod P) x^t. */
typedef struct { int degree; u64 p_low, mu_low, drop; } Clmul;

/* The same window rolled by the scan itself as it makes each symbol (scan_rabin): the
 * carry-less steps of a word overlap the scan of the next, and a document read lean
 * stores no symbol at all (the window's last w symbols stay in a ring). pclmulqdq is
 * written as an instruction: inline assembly needs no target attribute, so the scan
 * that holds it stays compiled for plain x86-64 and runs it only where HAS_CLMUL. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define FUSED_BUILT 1
static inline __attribute__((always_inline)) __m128i clmul_lo_lo(__m128i a, __m128i b) {
    __asm__("pclmulqdq $0x00, %1, %0" : "+x"(a) : "x"(b));
    return a;
}
static inline __attribute__((always_inline)) __m128i clmul_hi_lo(__m128i a, __m128i b) { /* a's high half */
    __asm__("pclmulqdq $0x01, %1, %0" : "+x"(a) : "x"(b));
    return a;
}
#else
#define FUSED_BUILT 0
#endif

/* What scan_rabin is asked for: the window, its carry-less constants and the masks. */
typedef struct {
    Py_ssize_t window;
    Clmul c;
    u64 pm, pr, bm, br;
} RabinSpec;

#if FUSED_BUILT
/* The rolling state during a scan: G (as in rabin_clmul_loop), the constants, the last
 * symbols in a ring, and the candidate lists, grown as needed (a few words in a hundred
 * are candidates: no list is sized for every word). All of it is held as 64-bit
 * integers: the scan calls out for long words, and a call would make the compiler keep
 * vector registers in memory around it; each step moves what it multiplies into vector
 * registers itself. The functions given the whole state are inline, so what the scan
 * holds of it can stay in registers; rabin_grow, out of line and rarely called, is given
 * the lists alone. */
typedef struct {
    u64 g, mu, pl, drop, lift;     /* G's low half (its high half is never read); lift = x^t */
    u64 pm, pr, bm, br;            /* the masks and remainders shifted up by t, to test G itself */
    Py_ssize_t window, ring_mask, n_prim, n_back, cap;
    u64 *ring;
    int64_t *prim, *back;
    int failed;
} Rabin;

static inline __attribute__((always_inline)) int rabin_start(Rabin *r, const RabinSpec *spec) {
    const int t = 64 - spec->c.degree;
    Py_ssize_t slots = 1;
    while (slots < spec->window) slots <<= 1;
    r->g = 0; r->mu = spec->c.mu_low; r->pl = spec->c.p_low; r->drop = spec->c.drop; r->lift = (u64)1 << t;
    /* F & m == rem  <=>  (F x^t) & (m x^t) == rem x^t: masks are below 2^d, so nothing is lost */
    r->pm = spec->pm << t; r->pr = spec->pr << t; r->bm = spec->bm << t; r->br = spec->br << t;
    r->window = spec->window; r->ring_mask = slots - 1; r->n_prim = r->n_back = 0; r->cap = 1024;
    r->failed = 0;
    r->prim = PyMem_RawMalloc(r->cap * 8); r->back = PyMem_RawMalloc(r->cap * 8);
    r->ring = PyMem_RawMalloc(slots * 8);
    return r->prim && r->back && r->ring ? 0 : -1;
}

/* Both candidate lists twice as long. */
static __attribute__((noinline)) int rabin_grow(int64_t **prim, int64_t **back, Py_ssize_t *cap) {
    Py_ssize_t more = 2 * *cap;
    int64_t *p = PyMem_RawRealloc(*prim, more * 8), *b = p ? PyMem_RawRealloc(*back, more * 8) : NULL;
    if (p) *prim = p;
    if (b) *back = b;
    if (!p || !b) return -1;
    *cap = more;
    return 0;
}

/* Word k is a candidate of either list (a few words in a hundred): appended, the lists
 * grown first when full. Grown through copies: no field of *r has its address taken,
 * so the scan can keep the whole state in registers (scan_utf8). */
static inline __attribute__((always_inline)) void rabin_note(Rabin *r, Py_ssize_t k, int primary, int backup) {
    if (__builtin_expect(r->n_prim >= r->cap || r->n_back >= r->cap, 0)) {
        int64_t *prim = r->prim, *back = r->back;
        Py_ssize_t cap = r->cap;
        int failed = r->failed || rabin_grow(&prim, &back, &cap) < 0;
        r->prim = prim; r->back = back; r->cap = cap;
        if (failed) {
            /* out of memory (reported after the scan): no remainder matches from here on, so
             * nothing more is appended */
            r->failed = 1;
            r->pr = r->br = ~(u64)0; /* G & (m x^t) has its low bit clear: never all ones */
            return;
        }
    }
    r->prim[r->n_prim] = k; r->n_prim += primary;
    r->back[r->n_back] = k; r->n_back += backup;
}

/* Word k's step of rabin_clmul_loop, from its symbol s. */
static inline __attribute__((always_inline)) void rabin_push(Rabin *r, Py_ssize_t k, u64 s) {
    __m128i v = clmul_lo_lo(_mm_cvtsi64_si128((long long)s), _mm_cvtsi64_si128((long long)r->lift)); /* s x^t */
    Py_ssize_t slot = k & r->ring_mask;
    if (k >= r->window) {
        u64 old = r->ring[(k - r->window) & r->ring_mask];
        v = _mm_xor_si128(v, clmul_lo_lo(_mm_cvtsi64_si128((long long)old), _mm_cvtsi64_si128((long long)r->drop)));
    }
    r->ring[slot] = s; /* after the read: the same slot when w is a power of two */
    __m128i pl = _mm_cvtsi64_si128((long long)r->pl);
    __m128i uh = _mm_xor_si128(_mm_cvtsi64_si128((long long)r->g), _mm_unpackhi_epi64(v, v));
    __m128i qm = clmul_lo_lo(uh, _mm_cvtsi64_si128((long long)r->mu));
    u64 g = (u64)_mm_cvtsi128_si64(_mm_xor_si128(_mm_xor_si128(v, clmul_lo_lo(uh, pl)), clmul_hi_lo(qm, pl)));
    r->g = g; /* F_k x^t: its low t bits are zero */
    /* a branch, well predicted (most words are neither), instead of two stores a word */
    int primary = (g & r->pm) == r->pr, backup = (g & r->bm) == r->br;
    if (__builtin_expect(primary | backup, 0)) rabin_note(r, k, primary, backup);
}

#else /* no scan rolls the window here: scan_rabin refuses, and select.py rolls it apart */
typedef struct { Py_ssize_t n_prim, n_back; int failed; int64_t *prim, *back; u64 *ring; } Rabin;
static int rabin_start(Rabin *r, const RabinSpec *spec) {
    (void)spec;
    r->n_prim = r->n_back = 0; r->failed = 0; r->prim = r->back = NULL; r->ring = NULL;
    return -1;
}
static inline void rabin_push(Rabin *r, Py_ssize_t k, u64 s) { (void)r; (void)k; (void)s; }
#endif

/* What a scan hands on from its rolling state: the candidate lists (and the ring, to free). */
typedef struct { int64_t *prim, *back; u64 *ring; Py_ssize_t n_prim, n_back; int failed; } RabinLists;

static inline __attribute__((always_inline)) RabinLists rabin_lists(const Rabin *r) {
    RabinLists l = {r->prim, r->back, r->ring, r->n_prim, r->n_back, r->failed};
    return l;
}

static void rabin_lists_free(RabinLists *l) {
    PyMem_RawFree(l->prim); PyMem_RawFree(l->back); PyMem_RawFree(l->ring);
}

/* Length of the strict UTF-8 sequence at p (p[0] >= 0x80), or 0 when it is none: no
 * overlong form, no surrogate, nothing past U+10FFFF, nothing cut short by `end`. The
 * rules of utf8_error, for a scan that checks the bytes it reads. */
static inline int utf8_sequence(const u8 *p, const u8 *end) {
    u8 b = p[0], lo = 0x80, hi = 0xBF; /* the range of the second byte */
    int need;
    if (b >= 0xC2 && b <= 0xDF) need = 1;
    else if (b >= 0xE0 && b <= 0xEF) { need = 2; if (b == 0xE0) lo = 0xA0; else if (b == 0xED) hi = 0x9F; }
    else if (b >= 0xF0 && b <= 0xF4) { need = 3; if (b == 0xF0) lo = 0x90; else if (b == 0xF4) hi = 0x8F; }
    else return 0;
    if (end - p <= need || p[1] < lo || p[1] > hi) return 0;
    for (int k = 2; k <= need; k++)
        if ((p[k] & 0xC0) != 0x80) return 0;
    return need + 1;
}

/* ---- scan ---------------------------------------------------------------------- */

/* Byte classes of the scan: a word byte, an ASCII space that is no line break, \n, \r,
 * and the lead bytes of the only multi-byte sequences that can be whitespace. */
enum { C_WORD = 0, C_SPACE, C_LF, C_CR, C_LEAD_C2, C_LEAD_E1, C_LEAD_E2, C_LEAD_E3 };
static u8 BYTE_CLASS[256];
/* The last bytes of the closers and sentence marks of ends_sentence: a word whose
 * last byte is none of them (most words end in a letter) is decided by one lookup. */
static u8 SENTENCE_TAIL[256];

static void init_tables(void) {
    for (int b = 0x09; b <= 0x0D; b++) BYTE_CLASS[b] = C_SPACE;
    for (int b = 0x1C; b <= 0x1F; b++) BYTE_CLASS[b] = C_SPACE;
    BYTE_CLASS[0x20] = C_SPACE;
    BYTE_CLASS['\n'] = C_LF;
    BYTE_CLASS['\r'] = C_CR;
    BYTE_CLASS[0xC2] = C_LEAD_C2;
    BYTE_CLASS[0xE1] = C_LEAD_E1;
    BYTE_CLASS[0xE2] = C_LEAD_E2;
    BYTE_CLASS[0xE3] = C_LEAD_E3;
    static const u8 tails[] = {'"', '\'', ')', ']', '}', '.', '!', '?', 0x9D, 0x99, 0xBB, 0xA6, 0x82, 0x81, 0x9F};
    for (size_t k = 0; k < sizeof(tails); k++) SENTENCE_TAIL[tails[k]] = 1;
    memcpy(SEEDED_SECRET, DEFAULT_SECRET, SECRET_LEN);
    for (int i = 0; i < SECRET_LEN / 16; i++) {
        u64 lo = rd64(DEFAULT_SECRET + 16 * i) + SEEDED_SECRET_SEED;
        u64 hi = rd64(DEFAULT_SECRET + 16 * i + 8) - SEEDED_SECRET_SEED;
        memcpy(SEEDED_SECRET + 16 * i, &lo, 8);
        memcpy(SEEDED_SECRET + 16 * i + 8, &hi, 8);
    }
}

/* Length in bytes of the whitespace character at p (0 when p starts no whitespace
 * character), for the multi-byte whitespace of docs/contract/normalizer.md#whitespace: U+0085, U+00A0, U+1680,
 * U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000. */
static inline int multibyte_space(const u8 *p, const u8 *end, int cls) {
    ptrdiff_t left = end - p;
    switch (cls) {
    case C_LEAD_C2:
        return (left >= 2 && (p[1] == 0x85 || p[1] == 0xA0)) ? 2 : 0;
    case C_LEAD_E1:
        return (left >= 3 && p[1] == 0x9A && p[2] == 0x80) ? 3 : 0;
    case C_LEAD_E2:
        if (left < 3) return 0;
        if (p[1] == 0x80) return (p[2] <= 0x8A && p[2] >= 0x80) || p[2] == 0xA8 || p[2] == 0xA9 || p[2] == 0xAF ? 3 : 0;
        return (p[1] == 0x81 && p[2] == 0x9F) ? 3 : 0;
    case C_LEAD_E3:
        return (left >= 3 && p[1] == 0x80 && p[2] == 0x80) ? 3 : 0;
    }
    return 0;
}

/* The gap of whitespace from p to the next word (or to end), as the normalizer reads it:
 * its line breaks counted into *breaks (CRLF, a lone CR and a lone LF one each; *prev_cr
 * carries a CR just seen), the continuation bytes of its multi-byte spaces into *cont.
 * Returns where the gap ends. scan() and canonical_words() both walk gaps with it, so
 * the chunker and the lean canonical text agree on every paragraph break. */
static inline const u8 *walk_gap(const u8 *p, const u8 *end, int *breaks, int *prev_cr, Py_ssize_t *cont) {
    while (p < end) {
        int cls = BYTE_CLASS[*p];
        if (cls == C_SPACE) { *prev_cr = 0; p++; }
        else if (cls == C_LF) { *breaks += !*prev_cr; *prev_cr = 0; p++; }
        else if (cls == C_CR) { (*breaks)++; *prev_cr = 1; p++; }
        else if (cls >= C_LEAD_C2) {
            int w = multibyte_space(p, end, cls);
            if (!w) break;
            *prev_cr = 0; p += w; *cont += w - 1;
        } else break;
    }
    return p;
}

/* Sentence ends (docs/contract/tttd-v1.md#snapping) on a word's UTF-8 [w0, q): stripped of trailing closers (" ' ) ] } U+201D
 * U+2019 U+00BB), it ends with a sentence mark (. ! ? U+2026 U+3002 U+FF01 U+FF1F).
 * UTF-8 is self-synchronizing, so matching the encoded characters at the end of the
 * bytes is matching the characters at the end of the word (segment.ends_sentence). */
static inline int ends_sentence(const u8 *w0, const u8 *q) {
    for (;;) {
        ptrdiff_t left = q - w0;
        if (left <= 0) return 0;
        u8 last = q[-1];
        if (!SENTENCE_TAIL[last]) return 0;
        if (last == '"' || last == '\'' || last == ')' || last == ']' || last == '}') { q--; continue; }
        if (left >= 3 && q[-3] == 0xE2 && q[-2] == 0x80 && (last == 0x9D || last == 0x99)) { q -= 3; continue; }
        if (left >= 2 && q[-2] == 0xC2 && last == 0xBB) { q -= 2; continue; }
        if (last == '.' || last == '!' || last == '?') return 1;
        if (left < 3) return 0;
        return (q[-3] == 0xE2 && q[-2] == 0x80 && last == 0xA6) || (q[-3] == 0xE3 && q[-2] == 0x80 && last == 0x82) ||
               (q[-3] == 0xEF && q[-2] == 0xBC && (last == 0x81 || last == 0x9F));
    }
}

/* ---- the output pool ------------------------------------------------------------ */

/* The per-word outputs (offsets, flags, symbols, fingerprints, candidates, keys) are
 * about as large as the document or its word count, and a process chunks one document
 * after another. As bytes objects they come from the C allocator, which hands blocks
 * this large back to the system when they are freed (glibc: mmap'd blocks, and heap
 * trimming), so the next chunking pays a page fault for every page it writes again
 * (500-800 per MB of text). A library must not change the process's allocator
 * settings (kernel/allocator.py is for programs that own their process), so the kernel
 * keeps its own large blocks instead: a `Buffer` (a read-only buffer object, what
 * np.frombuffer reads) whose block goes back to this pool when the last view of it dies,
 * for the next output to take with its pages already in memory.
 *
 * Bounded: the free blocks hold at most `pool_limit` bytes of pages a run wrote (128 MiB
 * unless set: what a 10 MB document's outputs under both rules, str and bytes, take), in at most POOL_SLOTS blocks, each at most a quarter of that; a freed
 * block that does not fit goes back to the system at once, and release_pool() gives back every free block. The pages of a
 * block count as written up to the furthest any output reached: a block is sized for the
 * most its output can hold and trimmed to what was written by its logical length, so
 * the pages past that were never touched and cost nothing.
 *
 * Every pool operation runs holding the GIL (a block is taken before the kernel lets
 * it go, and a Buffer dies under it), which is the pool's lock; a free-threaded build
 * takes a mutex. */
#if defined(__linux__) && defined(MAP_ANONYMOUS)
#define POOL_MAPPED 1
#else
#define POOL_MAPPED 0
#endif
#define POOL_MIN ((Py_ssize_t)64 << 10) /* smaller outputs come from malloc: it keeps these itself */
#define POOL_SLOTS 64
#define POOL_SHARE 4
#define POOL_PAGE ((size_t)4096)

typedef struct {
    u8 *mem;
    size_t cap;     /* mapped bytes */
    size_t touched; /* bytes from the start that any output wrote: resident */
} PoolBlock;

static struct {
    PoolBlock free[POOL_SLOTS]; /* oldest first */
    int count;
    size_t held;  /* sum of the free blocks' `touched` */
    size_t limit; /* most `held` may reach */
    unsigned long long taken, reused, returned, dropped;
} POOL = {.limit = (size_t)128 << 20};

#ifdef Py_GIL_DISABLED
static PyMutex POOL_LOCK;
#define POOL_ACQUIRE() PyMutex_Lock(&POOL_LOCK)
#define POOL_RELEASE() PyMutex_Unlock(&POOL_LOCK)
#else
#define POOL_ACQUIRE() ((void)0)
#define POOL_RELEASE() ((void)0)
#endif

static void block_unmap(PoolBlock b) {
#if POOL_MAPPED
    munmap(b.mem, b.cap);
#else
    PyMem_RawFree(b.mem);
#endif
}

static void pool_drop_oldest(void) { /* POOL held */
    PoolBlock b = POOL.free[0];
    POOL.held -= b.touched;
    POOL.count--;
    memmove(POOL.free, POOL.free + 1, (size_t)POOL.count * sizeof(PoolBlock));
    POOL.dropped++;
    block_unmap(b);
}

/* A block of at least `size` bytes: the smallest free one that holds it, or a new one. */
static int pool_take(size_t size, PoolBlock *out) {
    size = (size + POOL_PAGE - 1) & ~(POOL_PAGE - 1);
    POOL_ACQUIRE();
    int best = -1;
    for (int i = 0; i < POOL.count; i++)
        if (POOL.free[i].cap >= size && (best < 0 || POOL.free[i].cap < POOL.free[best].cap)) best = i;
    POOL.taken++;
    if (best >= 0) {
        *out = POOL.free[best];
        POOL.held -= out->touched;
        POOL.count--;
        memmove(POOL.free + best, POOL.free + best + 1, (size_t)(POOL.count - best) * sizeof(PoolBlock));
        POOL.reused++;
        POOL_RELEASE();
        return 0;
    }
    POOL_RELEASE();
    /* No MADV_HUGEPAGE (new_buffer's): a huge page spares first-touch faults, which a
     * reused block does not pay, and is resident whole, which would raise a long
     * document's peak by the part of each output's last huge page it never writes. */
#if POOL_MAPPED
    void *mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) return -1;
#else
    void *mem = PyMem_RawMalloc(size);
    if (!mem) return -1;
#endif
    out->mem = mem; out->cap = size; out->touched = 0;
    return 0;
}

/* Back to the pool, making room by giving the least recently freed blocks back to the
 * system; straight back to the system when the block alone holds more than a
 * POOL_SHARE-th of the bound (a very long document's outputs: freed in the middle of its
 * run, kept they would raise that run's peak, and the next run of that size pays its
 * page faults in proportion anyway). The oldest go first so that what a process chunks
 * now, not what it chunked once, is what the pool holds. */
static void pool_give(PoolBlock b) {
    POOL_ACQUIRE();
    if (b.touched > POOL.limit / POOL_SHARE) {
        POOL.dropped++;
        POOL_RELEASE();
        block_unmap(b);
        return;
    }
    while (POOL.count > 0 && (POOL.count == POOL_SLOTS || POOL.held + b.touched > POOL.limit)) pool_drop_oldest();
    POOL.free[POOL.count++] = b;
    POOL.held += b.touched;
    POOL.returned++;
    POOL_RELEASE();
}

static size_t pool_release_all(void) {
    POOL_ACQUIRE();
    size_t held = POOL.held;
    while (POOL.count > 0) pool_drop_oldest();
    POOL_RELEASE();
    return held;
}

/* A kernel output: `len` bytes at `mem`, read-only to Python (as the bytes it stands
 * for: numpy views it read-only). `block.mem` is NULL for a small output, malloc'd. */
typedef struct {
    PyObject_HEAD
    u8 *mem;
    Py_ssize_t len;
    PoolBlock block;
} Buffer;

static PyTypeObject BufferType;

static PyObject *pool_buffer(Py_ssize_t size) {
    Buffer *b = PyObject_New(Buffer, &BufferType);
    if (!b) return NULL;
    b->len = size;
    b->block.mem = NULL;
    if (size < POOL_MIN) {
        b->mem = PyMem_Malloc(size ? (size_t)size : 1);
        if (!b->mem) { Py_DECREF(b); return PyErr_NoMemory(); }
    } else {
        if (pool_take((size_t)size, &b->block) < 0) { b->mem = NULL; Py_DECREF(b); return PyErr_NoMemory(); }
        b->mem = b->block.mem;
    }
    return (PyObject *)b;
}

#define BUF(o) (((Buffer *)(o))->mem)
#define BUF_LEN(o) (((Buffer *)(o))->len)

/* Trims an output to what was written (never grows it): its length only. Pages past it
 * that no run wrote cost nothing, and those a longer document wrote stay for the next one
 * (counted in the block's `touched`). */
static void buffer_trim(PyObject *o, Py_ssize_t size) {
    Buffer *b = (Buffer *)o;
    if (size < b->len) b->len = size;
}

static void buffer_dealloc(Buffer *b) {
    if (b->block.mem) {
        /* + 8: the branch-free loops (candidates) write the item just past the length they trim to */
        size_t written = ((size_t)b->len + 8 + POOL_PAGE - 1) & ~(POOL_PAGE - 1);
        if (written > b->block.touched) b->block.touched = written < b->block.cap ? written : b->block.cap;
        pool_give(b->block);
    } else if (b->mem) PyMem_Free(b->mem);
    PyObject_Free(b);
}

static int buffer_getbuffer(Buffer *b, Py_buffer *view, int flags) {
    return PyBuffer_FillInfo(view, (PyObject *)b, b->mem, b->len, 1, flags);
}

static Py_ssize_t buffer_length(Buffer *b) { return b->len; }

/* Equal to any object whose buffer holds the same bytes, as the bytes object it stands for. */
static PyObject *buffer_richcompare(Buffer *b, PyObject *other, int op) {
    if ((op != Py_EQ && op != Py_NE) || !PyObject_CheckBuffer(other)) Py_RETURN_NOTIMPLEMENTED;
    Py_buffer v;
    if (PyObject_GetBuffer(other, &v, PyBUF_SIMPLE) < 0) return NULL;
    int same = v.len == b->len && (b->len == 0 || memcmp(v.buf, b->mem, (size_t)b->len) == 0);
    PyBuffer_Release(&v);
    return PyBool_FromLong(op == Py_EQ ? same : !same);
}

static PyBufferProcs BUFFER_PROCS = {(getbufferproc)buffer_getbuffer, NULL};
static PySequenceMethods BUFFER_SEQUENCE = {.sq_length = (lenfunc)buffer_length};

static PyTypeObject BufferType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "steadlith_core.kernel._kernel.Buffer",
    .tp_basicsize = sizeof(Buffer),
    .tp_dealloc = (destructor)buffer_dealloc,
    .tp_as_buffer = &BUFFER_PROCS,
    .tp_as_sequence = &BUFFER_SEQUENCE,
    .tp_richcompare = (richcmpfunc)buffer_richcompare,
    .tp_hash = PyObject_HashNotImplemented,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A kernel output: read it with np.frombuffer or memoryview. Its memory goes back to the kernel's pool "
              "when the last view of it dies.",
};

/* release_pool() -> bytes of written pages given back: every free block goes back to the system. */
static PyObject *release_pool(PyObject *self, PyObject *unused) { return PyLong_FromSize_t(pool_release_all()); }

/* pool_limit(bytes=-1) -> the bound before; bytes >= 0 sets it (0: keep nothing), and
 * gives back the oldest free blocks until the pool is within it. */
static PyObject *pool_limit(PyObject *self, PyObject *args) {
    Py_ssize_t limit = -1;
    if (!PyArg_ParseTuple(args, "|n", &limit)) return NULL;
    POOL_ACQUIRE();
    size_t before = POOL.limit;
    if (limit >= 0) {
        POOL.limit = (size_t)limit;
        while (POOL.count > 0 && POOL.held > POOL.limit) pool_drop_oldest();
    }
    POOL_RELEASE();
    return PyLong_FromSize_t(before);
}

/* pool_stats() -> dict: free blocks and the written bytes they hold, the bound, and how many
 * blocks were taken (of them reused), returned to the pool and given back to the system. */
static PyObject *pool_stats(PyObject *self, PyObject *unused) {
    POOL_ACQUIRE();
    PoolBlock copy[POOL_SLOTS];
    int count = POOL.count;
    memcpy(copy, POOL.free, sizeof(copy));
    size_t held = POOL.held, limit = POOL.limit, mapped = 0;
    unsigned long long taken = POOL.taken, reused = POOL.reused, returned = POOL.returned, dropped = POOL.dropped;
    POOL_RELEASE();
    for (int i = 0; i < count; i++) mapped += copy[i].cap;
    return Py_BuildValue("{s:i,s:n,s:n,s:n,s:K,s:K,s:K,s:K}", "free_blocks", count, "free_bytes", (Py_ssize_t)held,
                         "free_mapped", (Py_ssize_t)mapped, "limit", (Py_ssize_t)limit, "taken", taken, "reused", reused,
                         "returned", returned, "dropped", dropped);
}

/* Outputs are bytes, not bytearray: numpy views them read-only, and a bytearray whose
 * export a failed allocation left behind is reported at exit as a SystemError line
 * (seen under an address-space limit), which would break a one-line error message. */
static PyObject *new_buffer(Py_ssize_t size) {
    PyObject *b = PyBytes_FromStringAndSize(NULL, size);
#if defined(MADV_HUGEPAGE)
    if (b && size >= HUGE_BUFFER) {
        uintptr_t lo = ((uintptr_t)PyBytes_AS_STRING(b) + 4095) & ~(uintptr_t)4095;
        uintptr_t hi = ((uintptr_t)PyBytes_AS_STRING(b) + size) & ~(uintptr_t)4095;
        if (hi > lo) madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    }
#endif
    return b;
}

static int shrink(PyObject **buf, Py_ssize_t size) { return _PyBytes_Resize(buf, size); }

/* How many of the 16 bytes at p are printable ASCII, up to the first that is not. */
static inline int printable_prefix(const u8 *p) {
#if defined(__SSE2__)
    __m128i v = _mm_loadu_si128((const __m128i *)p);
    unsigned printable = (unsigned)_mm_movemask_epi8(_mm_cmpgt_epi8(v, _mm_set1_epi8(0x20)));
    return __builtin_ctz(~printable);
#else
    int k = 0;
    while (k < 16 && p[k] > 0x20 && p[k] < 0x80) k++;
    return k;
#endif
}

/* The scan of a str that is not ASCII, read in place in its 1-, 2- or 4-byte storage:
 * no UTF-8 copy of the document is made (that is a copy of the text's size, and a
 * pass over it). Offsets are code points directly; each word's UTF-8 is written
 * straight into the canonical text, and its symbol and sentence flag are computed
 * from there. Lone surrogates are written as "surrogatepass" writes them. */
static inline int cp_class(Py_UCS4 c) {
    if (c < 0x80) return BYTE_CLASS[c]; /* C_WORD, C_SPACE, C_LF or C_CR */
    return (c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
            c == 0x202F || c == 0x205F || c == 0x3000) ? C_SPACE : C_WORD;
}

static inline Py_ssize_t put_utf8(u8 *o, Py_UCS4 c) {
    if (c < 0x80) { o[0] = (u8)c; return 1; }
    if (c < 0x800) { o[0] = (u8)(0xC0 | (c >> 6)); o[1] = (u8)(0x80 | (c & 0x3F)); return 2; }
    if (c < 0x10000) {
        o[0] = (u8)(0xE0 | (c >> 12)); o[1] = (u8)(0x80 | ((c >> 6) & 0x3F)); o[2] = (u8)(0x80 | (c & 0x3F));
        return 3;
    }
    o[0] = (u8)(0xF0 | (c >> 18)); o[1] = (u8)(0x80 | ((c >> 12) & 0x3F));
    o[2] = (u8)(0x80 | ((c >> 6) & 0x3F)); o[3] = (u8)(0x80 | (c & 0x3F));
    return 4;
}

/* How many of the 16 code points at src[i..i+16) are printable ASCII (U+0021-U+007F,
 * word characters that are their own UTF-8), counted up to the first that is not; all
 * 16, narrowed to bytes, are stored at dst (16 bytes of room), and only the first
 * `count` of them are kept by the caller. A word of prose is mostly one such run, so
 * its characters are copied and tested 16 at a time instead of one by one. */
static inline __attribute__((always_inline)) int ascii_run(const int kind, const void *src, Py_ssize_t i, u8 *dst) {
#if defined(__SSE2__)
    __m128i v;
    if (kind == PyUnicode_1BYTE_KIND) {
        v = _mm_loadu_si128((const __m128i *)((const u8 *)src + i));
    } else if (kind == PyUnicode_2BYTE_KIND) {
        const __m128i *q = (const __m128i *)((const uint16_t *)src + i);
        /* unsigned saturation of signed 16-bit lanes: U+0080-U+7FFF become 0xFF and
         * U+8000-U+FFFF become 0x00, neither of them in the printable range */
        v = _mm_packus_epi16(_mm_loadu_si128(q), _mm_loadu_si128(q + 1));
    } else {
        const __m128i *q = (const __m128i *)((const uint32_t *)src + i);
        /* code points are below 2^31: signed saturation keeps 0-0x7FFF and makes the rest
         * 0x7FFF, which the second narrowing turns into 0xFF */
        __m128i lo = _mm_packs_epi32(_mm_loadu_si128(q), _mm_loadu_si128(q + 1));
        __m128i hi = _mm_packs_epi32(_mm_loadu_si128(q + 2), _mm_loadu_si128(q + 3));
        v = _mm_packus_epi16(lo, hi);
    }
    _mm_storeu_si128((__m128i *)dst, v);
    /* as signed bytes, 0x80-0xFF are negative: "> 0x20" is exactly U+0021-U+007F */
    unsigned printable = (unsigned)_mm_movemask_epi8(_mm_cmpgt_epi8(v, _mm_set1_epi8(0x20)));
    return __builtin_ctz(~printable); /* bit 16 and up of ~printable are set */
#else
    int k = 0;
    for (; k < 16; k++) {
        Py_UCS4 c = PyUnicode_READ(kind, src, i + k);
        if (c <= 0x20 || c >= 0x80) break;
        dst[k] = (u8)c;
    }
    return k;
#endif
}

/* The loop of scan_str for one storage width: inlined with `kind` a constant, so each
 * character read is a plain load. Returns the word count; *out_len the canonical length.
 * `canon` has 16 bytes of room past the longest canonical text (ascii_run's stores). */
static inline __attribute__((always_inline)) Py_ssize_t scan_cps(
    const int kind, const void *src, const Py_ssize_t len, int32_t *starts, int32_t *ends, u8 *para, u64 *sym,
    u8 *canon, int32_t *cend, u8 *sent, Py_ssize_t *out_len) {
    Py_ssize_t n = 0, out = 0, i = 0;
    int breaks = 0, prev_cr = 0;
    while (i < len) {
        /* most gaps are one space before printable ASCII: taken without the loop */
        if (i + 1 < len && PyUnicode_READ(kind, src, i) == ' ' && PyUnicode_READ(kind, src, i + 1) - 0x21 < 0x5F) i++;
        else while (i < len) { /* the gap */
            Py_UCS4 c = PyUnicode_READ(kind, src, i);
            if (c - 0x21 < 0x5F) break; /* printable ASCII: a word starts */
            if (c == ' ') { prev_cr = 0; i++; continue; }
            int cls = cp_class(c);
            if (cls == C_WORD) break;
            if (cls == C_LF) breaks += !prev_cr;
            else if (cls == C_CR) breaks++;
            prev_cr = cls == C_CR;
            i++;
        }
        if (i >= len) break;
        int is_para = n > 0 && breaks >= 2;
        starts[n] = (int32_t)i;
        if (n > 0) {
            if (is_para) { canon[out++] = '\n'; canon[out++] = '\n'; }
            else canon[out++] = ' ';
        }
        const Py_ssize_t w0 = out;
        while (i < len) { /* the word */
            if (i + 16 <= len) {
                int run = ascii_run(kind, src, i, canon + out);
                out += run;
                i += run;
                if (run == 16) continue;
                if (i >= len) break;
            }
            Py_UCS4 c = PyUnicode_READ(kind, src, i);
            if (c == ' ') break; /* the usual end of a word, known without the table */
            if (c < 0x80) {
                if (BYTE_CLASS[c] != C_WORD) break;
                canon[out++] = (u8)c;
            } else {
                if (cp_class(c) != C_WORD) break;
                out += put_utf8(canon + out, c);
            }
            i++;
        }
        ends[n] = (int32_t)i;
        para[n] = (u8)is_para;
        sym[n] = xxh3_64(canon + w0, (size_t)(out - w0), is_para ? 1 : 0);
        sent[n] = (u8)ends_sentence(canon + w0, canon + out);
        cend[n] = (int32_t)out;
        n++;
        breaks = 0;
        prev_cr = 0;
    }
    *out_len = out;
    return n;
}

/* The outputs of a scan: per-word arrays (int32 offsets, since MAX_SCAN_INPUT bounds every
 * offset; uint8 flags; uint64 symbols) and the canonical text, each allocated for the
 * most the input can hold and shrunk to what was written. */
typedef struct {
    PyObject *starts, *ends, *para, *sym, *canon, *cend, *sent;
} ScanOut;

/* Offsets are int32: a document is far below this (loader.MAX_DOCUMENT_BYTES), and
 * half-width offsets halve the memory a scan writes. A str built in Python can pass it:
 * it is refused with a message instead of wrapping around. */
#define MAX_SCAN_INPUT ((Py_ssize_t)INT32_MAX)

static void scan_out_clear(ScanOut *o) {
    Py_CLEAR(o->starts); Py_CLEAR(o->ends); Py_CLEAR(o->para); Py_CLEAR(o->sym);
    Py_CLEAR(o->canon); Py_CLEAR(o->cend); Py_CLEAR(o->sent);
}

/* `rolling`: the window is rolled during a lean scan (scan_rabin), which stores no symbol. */
static int scan_out_new(ScanOut *o, Py_ssize_t words, Py_ssize_t canon_bytes, int lean, int rolling) {
    o->starts = pool_buffer(words * 4); o->ends = pool_buffer(words * 4); o->para = pool_buffer(words);
    o->sym = pool_buffer(rolling ? 0 : words * 8); o->canon = new_buffer(lean ? 0 : canon_bytes);
    o->cend = pool_buffer(lean ? 0 : words * 4);
    o->sent = pool_buffer(words);
    if (o->starts && o->ends && o->para && o->sym && o->canon && o->cend && o->sent) return 0;
    scan_out_clear(o);
    return -1;
}

/* Shrinks every output to n words and `out` canonical bytes (out < 0: the canonical
 * text is a view of the input, kept as it is) and returns the tuple of scan(); the
 * outputs are released either way. */
static PyObject *scan_out_finish(ScanOut *o, Py_ssize_t n, Py_ssize_t out, int lean) {
    PyObject *result = NULL;
    buffer_trim(o->starts, n * 4); buffer_trim(o->ends, n * 4); buffer_trim(o->para, n);
    buffer_trim(o->sym, n * 8); buffer_trim(o->sent, n);
    if (!lean) buffer_trim(o->cend, n * 4);
    if (out < 0 || lean || shrink(&o->canon, out) == 0)
        result = Py_BuildValue("nOOOOOOO", n, o->starts, o->ends, o->para, o->sym, o->canon, o->cend, o->sent);
    scan_out_clear(o); /* a failed _PyBytes_Resize has already cleared the canonical text */
    return result;
}

/* scan_rabin's result: the scan's tuple (scan_out_finish) followed by the candidate
 * positions (int64 bytes) and `cum` (shrunk to n + 1 int32, or None when NULL); `bad` >= 0
 * (a byte that is not UTF-8) makes it that offset instead. Releases the outputs, `cum`
 * and the lists. */
static PyObject *rabin_finish(ScanOut *o, Py_ssize_t n, RabinLists *r, Py_ssize_t bad, PyObject *cum) {
    PyObject *scanned = NULL, *prim = NULL, *back = NULL, *result = NULL;
    if (bad >= 0) { scan_out_clear(o); rabin_lists_free(r); Py_XDECREF(cum); return PyLong_FromSsize_t(bad); }
    if (r->failed) { PyErr_NoMemory(); scan_out_clear(o); rabin_lists_free(r); Py_XDECREF(cum); return NULL; }
    if (cum) buffer_trim(cum, (n + 1) * 4);
    if (!cum) { cum = Py_None; Py_INCREF(cum); }
    prim = PyBytes_FromStringAndSize((const char *)r->prim, r->n_prim * 8);
    back = PyBytes_FromStringAndSize((const char *)r->back, r->n_back * 8);
    rabin_lists_free(r);
    if (prim && back && (scanned = scan_out_finish(o, n, 0, 1))) {
        Py_ssize_t k, m = PyTuple_GET_SIZE(scanned);
        result = PyTuple_New(m + 3);
        for (k = 0; result && k < m; k++) {
            PyObject *item = PyTuple_GET_ITEM(scanned, k);
            Py_INCREF(item);
            PyTuple_SET_ITEM(result, k, item);
        }
        if (result) {
            PyTuple_SET_ITEM(result, m, prim);
            PyTuple_SET_ITEM(result, m + 1, back);
            PyTuple_SET_ITEM(result, m + 2, cum);
            prim = back = cum = NULL; /* the tuple holds them */
        }
    } else scan_out_clear(o);
    Py_XDECREF(scanned); Py_XDECREF(prim); Py_XDECREF(back); Py_XDECREF(cum);
    return result;
}

static PyObject *too_large(Py_ssize_t len) {
    PyErr_Format(PyExc_ValueError, "the document is too large for the text kernel: %zd characters or bytes, "
                 "over the limit of %zd", len, MAX_SCAN_INPUT);
    return NULL;
}

static PyObject *scan_str(PyObject *text) {
    const int kind = PyUnicode_KIND(text);
    const void *src = PyUnicode_DATA(text);
    const Py_ssize_t len = PyUnicode_GET_LENGTH(text);
    /* UTF-8 bytes per code point at most: 2 for Latin-1, 3 in the BMP, 4 beyond */
    const Py_ssize_t per = kind == PyUnicode_1BYTE_KIND ? 2 : kind == PyUnicode_2BYTE_KIND ? 3 : 4;
    if (len > MAX_SCAN_INPUT / per) return too_large(len);
    ScanOut o;
    if (scan_out_new(&o, (len + 1) / 2, len * per + 16, 0, 0) < 0) return NULL;
    int32_t *starts = (int32_t *)BUF(o.starts), *ends = (int32_t *)BUF(o.ends);
    u8 *para = BUF(o.para), *canon = (u8 *)PyBytes_AS_STRING(o.canon);
    u64 *sym = (u64 *)BUF(o.sym);
    int32_t *cend = (int32_t *)BUF(o.cend);
    u8 *sent = BUF(o.sent);
    Py_ssize_t n = 0, out = 0;
    Py_BEGIN_ALLOW_THREADS
    if (kind == PyUnicode_1BYTE_KIND) n = scan_cps(PyUnicode_1BYTE_KIND, src, len, starts, ends, para, sym, canon, cend, sent, &out);
    else if (kind == PyUnicode_2BYTE_KIND) n = scan_cps(PyUnicode_2BYTE_KIND, src, len, starts, ends, para, sym, canon, cend, sent, &out);
    else n = scan_cps(PyUnicode_4BYTE_KIND, src, len, starts, ends, para, sym, canon, cend, sent, &out);
    Py_END_ALLOW_THREADS
    return scan_out_finish(&o, n, out, 0);
}

/* scan(data) -> (n, starts, ends, para, symbols, canonical, canonical_ends, sentence_ends)
 * data: the text's UTF-8 bytes (any buffer), or the text as a str. Every output, `canonical` too, is a bytes object
 * of n items (int32, int32, uint8, uint64, int32, uint8); `canonical`, the canonical text, is
 * bytes: it is never longer than the input, as each separator replaces a gap at least
 * as long (two line breaks are two bytes or more). */
static PyObject *scan_bytes(PyObject *arg, int lean, const RabinSpec *spec, int check, int chars4);

static PyObject *scan(PyObject *self, PyObject *arg) { return scan_bytes(arg, 0, NULL, 0, 0); }

/* scan_lean(data) -> scan(data) of UTF-8 bytes without the canonical text: `canonical`
 * and `canonical_ends` come back empty, and nothing is written for them. A one-shot run
 * slices each chunk's canonical text from the document itself when it hashes it
 * (canonical_hashes), which spares a copy of the document and 4 bytes a word. */
static PyObject *scan_lean(PyObject *self, PyObject *arg) {
    if (PyUnicode_Check(arg)) { PyErr_SetString(PyExc_TypeError, "scan_lean takes UTF-8 bytes, not a str"); return NULL; }
    return scan_bytes(arg, 1, NULL, 0, 0);
}

/* scan_checked(data, chars4=False) -> scan_lean(data)'s tuple + (cum or None), or an int
 * scan_lean and utf8_error in one pass: the bytes are checked as strict UTF-8 as they
 * are read (as scan_rabin reads them), and when they are not, the result is the offset
 * of the first bad byte (the one utf8_error gives) instead of a tuple. With chars4
 * (inputs of at most 2^30 bytes), `cum` is chars4/1's running total over the words,
 * int32, n + 1 of them: chars4_totals(starts, ends, False, True)'s, without a pass over
 * the offsets. */
static PyObject *scan_checked(PyObject *self, PyObject *args) {
    PyObject *data;
    int chars4 = 0;
    if (!PyArg_ParseTuple(args, "O|p", &data, &chars4)) return NULL;
    if (PyUnicode_Check(data)) { PyErr_SetString(PyExc_TypeError, "scan_checked takes UTF-8 bytes, not a str"); return NULL; }
    return scan_bytes(data, 1, NULL, 1, chars4);
}

static int parse_clmul(PyObject *o, Clmul *c);

/* The outputs of one scan of UTF-8 bytes, and where it stands (scan_utf8). */
typedef struct {
    int32_t *starts, *ends, *cend, *cum; /* cum: chars4/1's running total, or NULL */
    u8 *para, *sent, *canon;
    u64 *sym;
    Py_ssize_t out, lead, bad; /* canonical bytes written, where word 0 starts, the first bad byte or -1 */
    int same;                  /* the canonical text is still the input itself (scan_bytes) */
} Utf8Scan;

/* The loop of scan_bytes, inlined with `lean`, `rolling` and `checked` constants, so
 * each form holds in registers only what it uses. `rolling` (scan_rabin: lean UTF-8
 * bytes) rolls the window over each symbol as it is made instead of storing it.
 * `checked` (scan_rabin, scan_checked: lean UTF-8 bytes) reads every byte that is not
 * ASCII as a whole sequence, checked (utf8_sequence): a gap takes only whitespace, which
 * is valid, and the word loop reads every other such byte, so the scan is the check and
 * no pass of utf8_error is needed. The first bad byte stops the scan (u->bad).
 * `checked` 2 also writes chars4/1's running total to u->cum (a constant, not a test of
 * u->cum: the form without it keeps a register free). Returns the word count. */
static inline __attribute__((always_inline)) Py_ssize_t scan_utf8(const int lean, const int rolling, const int checked,
                                                                const u8 *data, const u8 *end, Utf8Scan *u,
                                                                Rabin *rolled) {
    /* the rolling state as a local whose address never leaves inlined code: stores to
     * the candidate lists (int64) and the ring (u64) cannot alias it, so its counters
     * and constants are not reloaded after every store */
    Rabin state = *rolled, *r = &state;
    int32_t *starts = u->starts, *ends = u->ends, *cend = u->cend, *cum = u->cum;
    int32_t total = 0; /* chars4/1 of the words so far: below 2^30 (scan_bytes checks the input's size) */
    if (checked == 2) cum[0] = 0;
    u8 *para = u->para, *sent = u->sent, *canon = u->canon;
    u64 *sym = u->sym;
    Py_ssize_t n = 0, out = 0, lead = 0;
    int same = u->same;
    const u8 *p = data;
    /* code-point offset = byte offset - continuation bytes (10xxxxxx) before it */
    Py_ssize_t cont = 0;
    int breaks = 0, prev_cr = 0;
    while (p < end) {
        const u8 *g0 = p;
        /* the gap: whitespace up to the next word, counting its line breaks. Most gaps
         * are one space before printable ASCII: taken without the class table */
        if (end - p >= 2 && p[0] == ' ' && (u8)(p[1] - 0x21) < 0x5F) p++;
        else p = walk_gap(p, end, &breaks, &prev_cr, &cont);
        if (p >= end) break;
        /* the word */
        const u8 *w0 = p;
        int is_para = n > 0 && breaks >= 2;
        const int32_t s0 = (int32_t)((p - data) - cont); /* kept: a store to cum could alias starts */
        starts[n] = s0;
        while (p < end) {
            if (end - p >= 16) {
                int run = printable_prefix(p);
                p += run;
                if (run == 16) continue;
            }
            if (p >= end) break;
            u8 b = *p;
            if (b == ' ') break; /* the usual end of a word, known without the table */
            if (b > 0x20 && b < 0x80) { p++; continue; } /* printable ASCII: the common case */
            int cls = BYTE_CLASS[b];
            if (cls == C_WORD || (cls >= C_LEAD_C2 && !multibyte_space(p, end, cls))) {
                if (checked && b >= 0x80) { /* a whole sequence, checked */
                    int w = utf8_sequence(p, end);
                    if (!w) { u->bad = p - data; goto stop; }
                    cont += w - 1; p += w;
                } else { cont += (b & 0xC0) == 0x80; p++; }
            }
            else break;
        }
        size_t len = (size_t)(p - w0);
        int32_t e = (int32_t)((p - data) - cont);
        if (checked == 2) { total += (e - s0 + 3) >> 2; cum[n + 1] = total; } /* ceil(code points / 4) */
        ends[n] = e;
        para[n] = (u8)is_para;
        if (rolling) rabin_push(r, n, xxh3_64(w0, len, is_para ? 1 : 0));
        else sym[n] = xxh3_64(w0, len, is_para ? 1 : 0);
        sent[n] = (u8)ends_sentence(w0, p);
        if (n == 0) lead = w0 - data;
        if (lean) goto next_word;
        if (same && n > 0) {
            ptrdiff_t gap = w0 - g0;
            if (is_para ? gap == 2 && g0[0] == '\n' && g0[1] == '\n' : gap == 1 && g0[0] == ' ') {
                out += (is_para ? 2 : 1) + (Py_ssize_t)len;
                cend[n] = (int32_t)out;
                goto next_word;
            }
            same = 0; /* from here on the canonical text differs: write what it was so far */
            memcpy(canon, data + lead, (size_t)out);
        } else if (same) {
            out = (Py_ssize_t)len;
            cend[n] = (int32_t)out;
            goto next_word;
        }
        if (n > 0) {
            if (is_para) { canon[out++] = '\n'; canon[out++] = '\n'; }
            else canon[out++] = ' ';
        }
        if (w0 + len + 16 <= end) {
            /* whole 16-byte blocks: the output has 16 bytes of slack and the input goes on */
            for (size_t i = 0; i < len; i += 16) memcpy(canon + out + i, w0 + i, 16);
        } else {
            memcpy(canon + out, w0, len);
        }
        out += (Py_ssize_t)len;
        cend[n] = (int32_t)out;
    next_word:
        n++;
        breaks = 0;
        prev_cr = 0;
    }
stop:
    u->out = out; u->lead = lead; u->same = same;
    if (rolling) *rolled = state;
    return n;
}

/* scan_rabin(data, window, clmul, masks, chars4=False) -> scan_lean(data)'s tuple +
 * (primary, backup, cum or None), or an int
 * One pass that scans UTF-8 bytes as scan_lean does and rolls the Rabin window of
 * docs/contract/tttd-v1.md#fingerprint over the symbols as it makes them, testing the
 * masks (pmask, prem, bmask, brem, each below 2^d) of
 * docs/contract/tttd-v1.md#candidates: `primary` and `backup` are candidates()'s int64
 * positions, and the symbols come back empty (none is stored). clmul is (d, p_low,
 * mu_low, drop) as for fingerprints(); only the carry-less form rolls here
 * (RuntimeError where the CPU lacks it: HAS_CLMUL). The bytes are checked as strict
 * UTF-8 as they are read: when they are not, the result is the offset of the first bad
 * byte (the one utf8_error gives) instead of a tuple. With chars4 (inputs of at most
 * 2^30 bytes), `cum` is chars4/1's running total over the words, int32, n + 1 of them:
 * chars4_totals(starts, ends, False, True)'s, without a pass over the offsets. */
#define MAX_FUSED_WINDOW ((Py_ssize_t)1 << 20)
#define MAX_CHARS4_INPUT ((Py_ssize_t)1 << 30)

static PyObject *scan_rabin(PyObject *self, PyObject *args) {
    PyObject *data, *o_clmul;
    Py_ssize_t window;
    unsigned long long pm, pr, bm, br;
    int chars4 = 0;
    if (!PyArg_ParseTuple(args, "OnO(KKKK)|p", &data, &window, &o_clmul, &pm, &pr, &bm, &br, &chars4)) return NULL;
    if (PyUnicode_Check(data)) { PyErr_SetString(PyExc_TypeError, "scan_rabin takes UTF-8 bytes, not a str"); return NULL; }
    if (window < 1 || window > MAX_FUSED_WINDOW) {
        PyErr_Format(PyExc_ValueError, "window must be 1 to %zd words", MAX_FUSED_WINDOW);
        return NULL;
    }
    RabinSpec spec = {window, {0, 0, 0, 0}, pm, pr, bm, br};
    int carryless = parse_clmul(o_clmul, &spec.c);
    if (carryless < 0) return NULL;
    if (!carryless || !FUSED_BUILT) {
        PyErr_SetString(PyExc_RuntimeError, "scan_rabin rolls the carry-less window only (see HAS_CLMUL)");
        return NULL;
    }
    if (((pm | pr | bm | br) >> spec.c.degree) != 0) {
        PyErr_SetString(PyExc_ValueError, "masks and remainders must be below 2^d, d the polynomial's degree");
        return NULL;
    }
    return scan_bytes(data, 1, &spec, 1, chars4);
}

/* scan_checked's result: the scan's tuple (scan_out_finish) followed by `cum` (shrunk to
 * n + 1 int32, or None when NULL); `bad` >= 0 (a byte that is not UTF-8) makes it that
 * offset instead. Releases the outputs and `cum`. */
static PyObject *checked_finish(ScanOut *o, Py_ssize_t n, Py_ssize_t bad, PyObject *cum) {
    if (bad >= 0) { scan_out_clear(o); Py_XDECREF(cum); return PyLong_FromSsize_t(bad); }
    PyObject *scanned = scan_out_finish(o, n, 0, 1), *result = NULL;
    if (scanned) {
        if (cum) buffer_trim(cum, (n + 1) * 4);
        result = PyTuple_New(PyTuple_GET_SIZE(scanned) + 1);
        for (Py_ssize_t k = 0; result && k < PyTuple_GET_SIZE(scanned); k++) {
            PyObject *item = PyTuple_GET_ITEM(scanned, k);
            Py_INCREF(item);
            PyTuple_SET_ITEM(result, k, item);
        }
        if (result) {
            if (!cum) { cum = Py_None; Py_INCREF(cum); }
            PyTuple_SET_ITEM(result, PyTuple_GET_SIZE(scanned), cum);
            cum = NULL; /* the tuple holds it */
        }
    }
    Py_XDECREF(scanned); Py_XDECREF(cum);
    return result;
}

/* With `spec` (scan_rabin: lean, UTF-8 bytes) the window is rolled in the pass; with
 * `check` (scan_rabin, scan_checked: lean) the bytes are checked in it and, with
 * `chars4`, chars4/1 totalled (scan_utf8). */
static PyObject *scan_bytes(PyObject *arg, int lean, const RabinSpec *spec, int check, int chars4) {
    Py_buffer view;
    if (PyUnicode_Check(arg)) {
        /* an ASCII str is its own UTF-8: read it in place instead of encoding a copy */
        if (!PyUnicode_IS_ASCII(arg)) return scan_str(arg);
        if (PyBuffer_FillInfo(&view, arg, PyUnicode_DATA(arg), PyUnicode_GET_LENGTH(arg), 1, PyBUF_SIMPLE) < 0)
            return NULL;
    } else if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    if (view.len > MAX_SCAN_INPUT - 16) { PyBuffer_Release(&view); return too_large(view.len); }
    const u8 *data = view.buf, *end = data + view.len;
    const int rolling = spec != NULL;
    /* Words are separated by at least one byte, so there are at most (len + 1) / 2;
     * pages of the buffers that stay unwritten are never touched, then given back. */
    ScanOut o;
    if (scan_out_new(&o, (view.len + 1) / 2, view.len + 16, lean, rolling) < 0) { PyBuffer_Release(&view); return NULL; }
    PyObject *cum = NULL;
    if (check && chars4) {
        if (view.len > MAX_CHARS4_INPUT) {
            PyErr_SetString(PyExc_ValueError, "chars4 totals are made in the scan for inputs of at most 2^30 bytes");
            scan_out_clear(&o); PyBuffer_Release(&view); return NULL;
        }
        if (!(cum = pool_buffer(((view.len + 1) / 2 + 1) * 4))) { scan_out_clear(&o); PyBuffer_Release(&view); return NULL; }
    }
    Rabin r; /* its address goes to inlined functions only: held in registers */
    memset(&r, 0, sizeof(r)); /* read only when rolling, but the compiler cannot tell */
    if (rolling && rabin_start(&r, spec) < 0) {
        RabinLists lists = rabin_lists(&r);
        rabin_lists_free(&lists); scan_out_clear(&o); Py_XDECREF(cum); PyBuffer_Release(&view); return PyErr_NoMemory();
    }
    /* While every gap between words is exactly its separator (" ", or "\n\n" before a
     * paragraph), the canonical text is the input itself from the first word on: nothing
     * is written, and if that holds to the end the input is returned as the canonical
     * text (a view of it), which spares a copy of the whole document. */
    Utf8Scan u = {(int32_t *)BUF(o.starts), (int32_t *)BUF(o.ends), (int32_t *)BUF(o.cend),
                  cum ? (int32_t *)BUF(cum) : NULL, BUF(o.para), BUF(o.sent), (u8 *)PyBytes_AS_STRING(o.canon),
                  (u64 *)BUF(o.sym),
                  0, 0, -1, PyBytes_Check(arg) /* immutable: a view of it stays the canonical text */};
    Py_ssize_t n;
    Py_BEGIN_ALLOW_THREADS
    if (rolling && cum) n = scan_utf8(1, 1, 2, data, end, &u, &r);
    else if (rolling) n = scan_utf8(1, 1, 1, data, end, &u, &r);
    else if (check && cum) n = scan_utf8(1, 0, 2, data, end, &u, &r);
    else if (check) n = scan_utf8(1, 0, 1, data, end, &u, &r);
    else if (lean) n = scan_utf8(1, 0, 0, data, end, &u, &r);
    else n = scan_utf8(0, 0, 0, data, end, &u, &r);
    Py_END_ALLOW_THREADS
    Py_ssize_t out = u.out;
    if (u.same && n > 0 && !lean) {
        /* the canonical text is input[lead:lead + out]: a view instead of a copy */
        PyObject *whole = PyMemoryView_FromObject(arg), *range = PyLong_FromSsize_t(u.lead + out);
        PyObject *first = PyLong_FromSsize_t(u.lead), *slice = NULL, *view_of = NULL;
        if (whole && range && first && (slice = PySlice_New(first, range, NULL)))
            view_of = PyObject_GetItem(whole, slice);
        Py_XDECREF(whole); Py_XDECREF(range); Py_XDECREF(first); Py_XDECREF(slice);
        if (!view_of) { PyBuffer_Release(&view); scan_out_clear(&o); return NULL; }
        Py_SETREF(o.canon, view_of);
        out = -1; /* scan_out_finish: leave it as it is */
    }
    PyBuffer_Release(&view);
    if (check && !rolling) return checked_finish(&o, n, u.bad, cum);
    if (!rolling) return scan_out_finish(&o, n, out, lean);
    RabinLists lists = rabin_lists(&r);
    return rabin_finish(&o, n, &lists, u.bad, cum);
}

/* utf8_error(data) -> offset of the first byte that is not strict UTF-8, or -1.
 * Strict as Python's codec: no overlong forms, no surrogates (U+D800-U+DFFF), nothing
 * past U+10FFFF, no truncated sequence. Lets a document read as bytes be checked
 * without decoding it to a str. */
static PyObject *utf8_error(PyObject *self, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const u8 *p = view.buf, *end = p + view.len;
    Py_ssize_t bad = -1;
    Py_BEGIN_ALLOW_THREADS
    while (p < end) {
        if (end - p >= 8 && (rd64(p) & 0x8080808080808080ULL) == 0) { p += 8; continue; }
        u8 b = *p;
        if (b < 0x80) { p++; continue; }
        int need;
        u8 lo = 0x80, hi = 0xBF; /* the range of the second byte */
        if (b >= 0xC2 && b <= 0xDF) need = 1;
        else if (b >= 0xE0 && b <= 0xEF) { need = 2; if (b == 0xE0) lo = 0xA0; else if (b == 0xED) hi = 0x9F; }
        else if (b >= 0xF0 && b <= 0xF4) { need = 3; if (b == 0xF0) lo = 0x90; else if (b == 0xF4) hi = 0x8F; }
        else break;
        if (end - p <= need || p[1] < lo || p[1] > hi) break;
        int ok = 1;
        for (int k = 2; k <= need; k++) ok &= (p[k] & 0xC0) == 0x80;
        if (!ok) break;
        p += need + 1;
    }
    if (p < end) bad = p - (const u8 *)view.buf;
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(bad);
}

/* ---- Rabin window ------------------------------------------------------------- */

static int get_table(PyObject *obj, Py_buffer *view, Py_ssize_t *rows) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS) < 0) return -1;
    if (view->len % (256 * 8) != 0 || view->len == 0 || view->len > 8 * 256 * 8) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_ValueError, "a table must be 1 to 8 rows of 256 uint64");
        return -1;
    }
    *rows = view->len / (256 * 8);
    return 0;
}

static inline u64 apply(const u64 *table, Py_ssize_t rows, u64 v) {
    u64 r = 0;
    for (Py_ssize_t i = 0; i < rows; i++) r ^= table[256 * i + ((v >> (8 * i)) & 0xFF)];
    return r;
}

/* The rolling window by carry-less multiplication: see Clmul (before the scan). */

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <wmmintrin.h>
#include <smmintrin.h>
#define CLMUL_BUILT 1
#define CLMUL_TARGET __attribute__((target("pclmul,sse4.1")))

static inline CLMUL_TARGET __m128i clmul64(u64 a, u64 b) {
    return _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)a), _mm_cvtsi64_si128((long long)b), 0x00);
}

/* One step of the chain G at word k of a stream that starts at word `from` (G is 0
 * before it): F_k. G stays in a vector register: on the chain from G_(k-1) to G_k are
 * two multiplications and two XORs, no move between register files (the high half of G
 * is junk; every use of G reads its low half only). */
static inline __attribute__((always_inline)) CLMUL_TARGET u64 rabin_clmul_step(
    __m128i *g, const u64 *s, Py_ssize_t k, Py_ssize_t from, Py_ssize_t window, int d, __m128i mu, __m128i pl,
    __m128i drop) {
    const int t = 64 - d;
    /* V = s_k x^t + s_(k-w) drop, as (lo, hi): off the chain */
    __m128i v = _mm_set_epi64x((long long)(s[k] >> d), (long long)(s[k] << t)); /* 8 <= d <= 63 */
    if (k - from >= window) v = _mm_xor_si128(v, _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)s[k - window]), drop, 0x00));
    __m128i uh = _mm_xor_si128(*g, _mm_unpackhi_epi64(v, v));         /* U_hi in the low half */
    __m128i qm = _mm_clmulepi64_si128(uh, mu, 0x00);                   /* q = U_hi + hi(qm) */
    /* q P'_lo = U_hi P'_lo + hi(qm) P'_lo: the first product does not wait for qm */
    *g = _mm_xor_si128(_mm_xor_si128(v, _mm_clmulepi64_si128(uh, pl, 0x00)), _mm_clmulepi64_si128(qm, pl, 0x01));
    return (u64)_mm_cvtsi128_si64(*g) >> t;
}

/* One loop for every entry point: `f` (unless NULL) receives every fingerprint, and
 * the primary and backup candidate positions are appended to prim/back (unless NULL;
 * each has room for n).
 *
 * The chain's latency, not its work, sets the pace of one stream, so a long one is
 * rolled as two chains stepped side by side: words [0, m) and [m, n). F_k is the sum
 * over the window alone, so the second chain starts from G = 0 at word m - w, rolls
 * w words it does not report, and from word m on gives exactly what one chain would.
 * Its candidates are written from index m of the lists (the first chain writes fewer
 * than m) and moved down to follow the first chain's at the end. */
static inline __attribute__((always_inline)) CLMUL_TARGET void rabin_clmul_loop(
    const u64 *s, Py_ssize_t n, Py_ssize_t window, Clmul c, u64 *f, u64 pm, u64 pr, u64 bm, u64 br,
    int64_t *prim, Py_ssize_t *np_, int64_t *back, Py_ssize_t *nb) {
    const int d = c.degree;
    const __m128i mu = _mm_cvtsi64_si128((long long)c.mu_low), pl = _mm_cvtsi64_si128((long long)c.p_low);
    const __m128i drop = _mm_cvtsi64_si128((long long)c.drop);
    /* two chains only where the second's warm-up (w words) is a small share of its half */
    const int split = window <= (n >> 3) && n >= 256;
    const Py_ssize_t m = split ? (n + window) / 2 : n, b0 = split ? m - window : n;
    Py_ssize_t n_prim = 0, n_back = 0, m_prim = 0, m_back = 0; /* m_: the second chain's, from index m */
    __m128i ga = _mm_setzero_si128(), gb = _mm_setzero_si128();
    Py_ssize_t ka = 0, kb = b0;
    for (; ka < m && kb < n; ka++, kb++) {
        u64 fa = rabin_clmul_step(&ga, s, ka, 0, window, d, mu, pl, drop);
        u64 fb = rabin_clmul_step(&gb, s, kb, b0, window, d, mu, pl, drop);
        if (f) f[ka] = fa;
        if (prim) {
            prim[n_prim] = ka; n_prim += (fa & pm) == pr; /* branch-free: most words are neither */
            back[n_back] = ka; n_back += (fa & bm) == br;
        }
        if (kb >= m) { /* past the warm-up */
            if (f) f[kb] = fb;
            if (prim) {
                prim[m + m_prim] = kb; m_prim += (fb & pm) == pr;
                back[m + m_back] = kb; m_back += (fb & bm) == br;
            }
        }
    }
    for (; ka < m; ka++) { /* the first chain's rest (all of it, when there is one chain) */
        u64 fa = rabin_clmul_step(&ga, s, ka, 0, window, d, mu, pl, drop);
        if (f) f[ka] = fa;
        if (prim) {
            prim[n_prim] = ka; n_prim += (fa & pm) == pr;
            back[n_back] = ka; n_back += (fa & bm) == br;
        }
    }
    for (; kb < n; kb++) { /* the second chain's rest */
        u64 fb = rabin_clmul_step(&gb, s, kb, b0, window, d, mu, pl, drop);
        if (kb < m) continue;
        if (f) f[kb] = fb;
        if (prim) {
            prim[m + m_prim] = kb; m_prim += (fb & pm) == pr;
            back[m + m_back] = kb; m_back += (fb & bm) == br;
        }
    }
    if (prim) {
        memmove(prim + n_prim, prim + m, (size_t)m_prim * 8);
        memmove(back + n_back, back + m, (size_t)m_back * 8);
        *np_ = n_prim + m_prim; *nb = n_back + m_back;
    }
}

static CLMUL_TARGET void rabin_clmul_store(const u64 *s, Py_ssize_t n, Py_ssize_t window, Clmul c, u64 *f) {
    rabin_clmul_loop(s, n, window, c, f, 0, 0, 0, 0, NULL, NULL, NULL, NULL);
}

static CLMUL_TARGET void rabin_clmul_both(const u64 *s, Py_ssize_t n, Py_ssize_t window, Clmul c, u64 *f, u64 pm,
                                          u64 pr, u64 bm, u64 br, int64_t *prim, Py_ssize_t *np_, int64_t *back,
                                          Py_ssize_t *nb) {
    rabin_clmul_loop(s, n, window, c, f, pm, pr, bm, br, prim, np_, back, nb);
}

static CLMUL_TARGET void rabin_clmul_candidates(const u64 *s, Py_ssize_t n, Py_ssize_t window, Clmul c, u64 pm,
                                                u64 pr, u64 bm, u64 br, int64_t *prim, Py_ssize_t *np_,
                                                int64_t *back, Py_ssize_t *nb) {
    rabin_clmul_loop(s, n, window, c, NULL, pm, pr, bm, br, prim, np_, back, nb);
}

static int clmul_usable(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}
#else
#define CLMUL_BUILT 0
static int clmul_usable(void) { return 0; }
#endif

static int HAS_CLMUL; /* set at import */

/* The optional last argument of both Rabin passes: None (the tables), or (d, p_low,
 * mu_low, drop) for the carry-less form, used where the CPU has it. Returns 1 when
 * the carry-less form runs, 0 for the tables, -1 on a malformed tuple. */
static int parse_clmul(PyObject *o, Clmul *c) {
    if (o == NULL || o == Py_None || !HAS_CLMUL) return 0;
    unsigned long long pl, ml, dr;
    if (!PyArg_ParseTuple(o, "iKKK", &c->degree, &pl, &ml, &dr)) return -1;
    if (c->degree < 8 || c->degree > 63) {
        PyErr_SetString(PyExc_ValueError, "the polynomial's degree must be 8 to 63");
        return -1;
    }
    c->p_low = pl; c->mu_low = ml; c->drop = dr;
    return 1;
}

/* fingerprints(symbols, window, reduce, shift, drop, clmul=None, masks=None)
 *   -> bytes of uint64, or with masks = (pmask, prem, bmask, brem) the tuple
 *   (fingerprints, primary, backup) of candidates() too, in the same pass.
 * F_k = F_(k-1) * x^64 + s_k - s_(k-w) * x^(64 w)  (mod P, in GF(2)): `reduce` maps
 * s to s mod P, `shift` maps F to F x^64 mod P, `drop` maps s to s x^(64 w) mod P. */
static PyObject *fingerprints(PyObject *self, PyObject *args) {
    PyObject *o_sym, *o_reduce, *o_shift, *o_drop, *o_clmul = NULL, *o_masks = NULL;
    Py_ssize_t window;
    if (!PyArg_ParseTuple(args, "OnOOO|OO", &o_sym, &window, &o_reduce, &o_shift, &o_drop, &o_clmul, &o_masks))
        return NULL;
    if (window < 1) { PyErr_SetString(PyExc_ValueError, "window must be >= 1"); return NULL; }
    unsigned long long pm = 0, pr = 0, bm = 0, br = 0;
    int with_candidates = o_masks != NULL && o_masks != Py_None;
    if (with_candidates && !PyArg_ParseTuple(o_masks, "KKKK", &pm, &pr, &bm, &br)) return NULL;
    Clmul cm;
    int carryless = parse_clmul(o_clmul, &cm);
    if (carryless < 0) return NULL;
    Py_buffer sv, rv, hv, dv;
    Py_ssize_t r_rows, h_rows, d_rows;
    if (PyObject_GetBuffer(o_sym, &sv, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (sv.len % 8) { PyBuffer_Release(&sv); PyErr_SetString(PyExc_ValueError, "symbols must be uint64"); return NULL; }
    if (get_table(o_reduce, &rv, &r_rows) < 0) { PyBuffer_Release(&sv); return NULL; }
    if (get_table(o_shift, &hv, &h_rows) < 0) { PyBuffer_Release(&sv); PyBuffer_Release(&rv); return NULL; }
    if (get_table(o_drop, &dv, &d_rows) < 0) {
        PyBuffer_Release(&sv); PyBuffer_Release(&rv); PyBuffer_Release(&hv); return NULL;
    }
    Py_ssize_t n = sv.len / 8, np_ = 0, nb = 0;
    PyObject *out = pool_buffer(n * 8), *b_p = NULL, *b_b = NULL, *result = NULL;
    if (out && with_candidates) {
        b_p = pool_buffer(n * 8);
        b_b = pool_buffer(n * 8);
    }
    if (out && (!with_candidates || (b_p && b_b))) {
        const u64 *s = sv.buf, *rt = rv.buf, *ht = hv.buf, *dt = dv.buf;
        u64 *f = (u64 *)BUF(out), acc = 0;
        int64_t *prim = b_p ? (int64_t *)BUF(b_p) : NULL, *back = b_b ? (int64_t *)BUF(b_b) : NULL;
        Py_BEGIN_ALLOW_THREADS
#if CLMUL_BUILT
        if (carryless && with_candidates) rabin_clmul_both(s, n, window, cm, f, pm, pr, bm, br, prim, &np_, back, &nb);
        else if (carryless) rabin_clmul_store(s, n, window, cm, f);
        else
#endif
        if (with_candidates) {
            for (Py_ssize_t k = 0; k < n; k++) {
                acc = apply(ht, h_rows, acc) ^ apply(rt, r_rows, s[k]);
                if (k >= window) acc ^= apply(dt, d_rows, s[k - window]);
                f[k] = acc;
                prim[np_] = k; np_ += (acc & pm) == pr;
                back[nb] = k; nb += (acc & bm) == br;
            }
        } else {
            for (Py_ssize_t k = 0; k < n; k++) {
                acc = apply(ht, h_rows, acc) ^ apply(rt, r_rows, s[k]);
                if (k >= window) acc ^= apply(dt, d_rows, s[k - window]);
                f[k] = acc;
            }
        }
        Py_END_ALLOW_THREADS
        if (!with_candidates) { Py_INCREF(out); result = out; }
        else {
            buffer_trim(b_p, np_ * 8); buffer_trim(b_b, nb * 8);
            result = Py_BuildValue("OOO", out, b_p, b_b);
        }
    }
    Py_XDECREF(out); Py_XDECREF(b_p); Py_XDECREF(b_b);
    PyBuffer_Release(&sv); PyBuffer_Release(&rv); PyBuffer_Release(&hv); PyBuffer_Release(&dv);
    return result;
}

/* fingerprint_candidates(symbols, window, reduce, shift, drop, pmask, prem, bmask, brem)
 *   -> (primary, backup): the candidates() of the fingerprints() of `symbols`, in one
 * pass that keeps only the running fingerprint: nobody stores 8 bytes a word of
 * fingerprints that only the candidate test reads. */
static PyObject *fingerprint_candidates(PyObject *self, PyObject *args) {
    PyObject *o_sym, *o_reduce, *o_shift, *o_drop, *o_clmul = NULL;
    Py_ssize_t window;
    unsigned long long pm, pr, bm, br;
    if (!PyArg_ParseTuple(args, "OnOOOKKKK|O", &o_sym, &window, &o_reduce, &o_shift, &o_drop, &pm, &pr, &bm, &br,
                          &o_clmul))
        return NULL;
    if (window < 1) { PyErr_SetString(PyExc_ValueError, "window must be >= 1"); return NULL; }
    Clmul cm;
    int carryless = parse_clmul(o_clmul, &cm);
    if (carryless < 0) return NULL;
    Py_buffer sv, rv, hv, dv;
    Py_ssize_t r_rows, h_rows, d_rows;
    if (PyObject_GetBuffer(o_sym, &sv, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (sv.len % 8) { PyBuffer_Release(&sv); PyErr_SetString(PyExc_ValueError, "symbols must be uint64"); return NULL; }
    if (get_table(o_reduce, &rv, &r_rows) < 0) { PyBuffer_Release(&sv); return NULL; }
    if (get_table(o_shift, &hv, &h_rows) < 0) { PyBuffer_Release(&sv); PyBuffer_Release(&rv); return NULL; }
    if (get_table(o_drop, &dv, &d_rows) < 0) {
        PyBuffer_Release(&sv); PyBuffer_Release(&rv); PyBuffer_Release(&hv); return NULL;
    }
    Py_ssize_t n = sv.len / 8, np_ = 0, nb = 0;
    PyObject *b_p = pool_buffer(n * 8), *b_b = pool_buffer(n * 8), *result = NULL;
    if (b_p && b_b) {
        const u64 *s = sv.buf, *rt = rv.buf, *ht = hv.buf, *dt = dv.buf;
        int64_t *prim = (int64_t *)BUF(b_p), *back = (int64_t *)BUF(b_b);
        u64 acc = 0;
        Py_BEGIN_ALLOW_THREADS
#if CLMUL_BUILT
        if (carryless) rabin_clmul_candidates(s, n, window, cm, pm, pr, bm, br, prim, &np_, back, &nb);
        else
#endif
        for (Py_ssize_t k = 0; k < n; k++) {
            acc = apply(ht, h_rows, acc) ^ apply(rt, r_rows, s[k]);
            if (k >= window) acc ^= apply(dt, d_rows, s[k - window]);
            prim[np_] = k; np_ += (acc & pm) == pr; /* branch-free: most words are neither */
            back[nb] = k; nb += (acc & bm) == br;
        }
        Py_END_ALLOW_THREADS
        buffer_trim(b_p, np_ * 8); buffer_trim(b_b, nb * 8);
        result = Py_BuildValue("OO", b_p, b_b);
    }
    Py_XDECREF(b_p); Py_XDECREF(b_b);
    PyBuffer_Release(&sv); PyBuffer_Release(&rv); PyBuffer_Release(&hv); PyBuffer_Release(&dv);
    return result;
}

/* candidates(fingerprints, primary_mask, primary_remainder, backup_mask, backup_remainder)
 *   -> (primary, backup): bytes of int64 word positions k with F_k & mask == remainder
 * (docs/contract/tttd-v1.md#fingerprint), in one read of the fingerprints, with no whole-array temporaries. */
static PyObject *candidates(PyObject *self, PyObject *args) {
    PyObject *o_fp;
    unsigned long long pm, pr, bm, br;
    if (!PyArg_ParseTuple(args, "OKKKK", &o_fp, &pm, &pr, &bm, &br)) return NULL;
    Py_buffer fv;
    if (PyObject_GetBuffer(o_fp, &fv, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (fv.len % 8) { PyBuffer_Release(&fv); PyErr_SetString(PyExc_ValueError, "fingerprints must be uint64"); return NULL; }
    Py_ssize_t n = fv.len / 8, np_ = 0, nb = 0;
    PyObject *b_p = pool_buffer(n * 8), *b_b = pool_buffer(n * 8), *result = NULL;
    if (b_p && b_b) {
        const u64 *f = fv.buf;
        int64_t *prim = (int64_t *)BUF(b_p), *back = (int64_t *)BUF(b_b);
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t k = 0; k < n; k++) {
            prim[np_] = k; np_ += (f[k] & pm) == pr; /* branch-free: most words are neither */
            back[nb] = k; nb += (f[k] & bm) == br;
        }
        Py_END_ALLOW_THREADS
        buffer_trim(b_p, np_ * 8); buffer_trim(b_b, nb * 8);
        result = Py_BuildValue("OO", b_p, b_b);
    }
    Py_XDECREF(b_p); Py_XDECREF(b_b);
    PyBuffer_Release(&fv);
    return result;
}

static int get_typed(PyObject *obj, Py_buffer *view, Py_ssize_t itemsize, const char *what);

/* ---- token counts (docs/contract/tokens.md#builtin) ---------------------------- */

/* chars4_totals(starts, ends, want_counts) -> (counts or None, cum)
 * chars4/1 of every word, ceil(code points / 4), as int32, and their running total
 * [0, c_0, c_0 + c_1, ...] as int64, in one pass over the scan's int32 offsets: what
 * numpy does in a subtraction, an add, a division, a zeroed array and a cumulative sum.
 * A bytes document keeps only the total (want_counts false: no counts are written). */
static PyObject *chars4_totals(PyObject *self, PyObject *args) {
    PyObject *o_starts, *o_ends;
    int want_counts, narrow = 0;
    if (!PyArg_ParseTuple(args, "OOp|p", &o_starts, &o_ends, &want_counts, &narrow)) return NULL;
    Py_buffer sv, ev;
    if (get_typed(o_starts, &sv, 4, "starts") < 0) return NULL;
    if (get_typed(o_ends, &ev, 4, "ends") < 0) { PyBuffer_Release(&sv); return NULL; }
    PyObject *b_tok = NULL, *b_cum = NULL, *result = NULL;
    Py_ssize_t n = sv.len / 4, bad = -1;
    if (ev.len != sv.len) { PyErr_SetString(PyExc_ValueError, "starts and ends differ in length"); goto done; }
    {
        const int32_t *st = sv.buf, *en = ev.buf;
        /* A total is at most (characters spanned + 3 a word) / 4: below 2^30 (a document
         * under 2^31 bytes of Markdown is), the running total is int32 when asked (half
         * the memory), with room for a sum of it and any count up to it. */
        int64_t bound = n ? ((int64_t)en[n - 1] - st[0] + 3 * (int64_t)n) / 4 : 0;
        int wide = !narrow || bound < 0 || bound >= ((int64_t)1 << 30);
        b_cum = pool_buffer((n + 1) * (wide ? 8 : 4));
        if (!b_cum || (want_counts && !(b_tok = pool_buffer(n * 4)))) goto done;
        int32_t *tok = b_tok ? (int32_t *)BUF(b_tok) : NULL;
        int64_t *cum = (int64_t *)BUF(b_cum), total = 0;
        int32_t *cum32 = (int32_t *)BUF(b_cum);
        Py_BEGIN_ALLOW_THREADS
        if (wide) cum[0] = 0; else cum32[0] = 0;
        Py_ssize_t k0 = 0;
#if defined(__SSE2__)
        if (wide && tok) {
            /* what a str document keeps: four counts at a time, the loop below for the
             * rest and for a word of no character (reported there) */
            const __m128i three = _mm_set1_epi32(3), zero = _mm_setzero_si128();
            for (; k0 + 4 <= n; k0 += 4) {
                __m128i len = _mm_sub_epi32(_mm_loadu_si128((const __m128i *)(en + k0)),
                                            _mm_loadu_si128((const __m128i *)(st + k0)));
                if (_mm_movemask_epi8(_mm_cmpgt_epi32(len, zero)) != 0xFFFF) break;
                __m128i c = _mm_srli_epi32(_mm_add_epi32(len, three), 2);
                _mm_storeu_si128((__m128i *)(tok + k0), c);
                int32_t lanes[4];
                _mm_storeu_si128((__m128i *)lanes, c);
                total += lanes[0]; cum[k0 + 1] = total;
                total += lanes[1]; cum[k0 + 2] = total;
                total += lanes[2]; cum[k0 + 3] = total;
                total += lanes[3]; cum[k0 + 4] = total;
            }
        }
#endif
        for (Py_ssize_t k = k0; k < n; k++) {
            int64_t len = (int64_t)en[k] - st[k];
            if (len <= 0) { bad = k; break; } /* a word has a character: offsets that say otherwise are not a scan's */
            int32_t c = (int32_t)((len + 3) >> 2);
            if (tok) tok[k] = c;
            total += c;
            if (!wide && total > INT32_MAX) { bad = k; break; } /* overlapping words: not a scan's either */
            if (wide) cum[k + 1] = total; else cum32[k + 1] = (int32_t)total;
        }
        Py_END_ALLOW_THREADS
    }
    if (bad >= 0) { PyErr_Format(PyExc_ValueError, "word %zd ends before it starts", bad); goto done; }
    result = Py_BuildValue("OO", b_tok ? b_tok : Py_None, b_cum);
done:
    Py_XDECREF(b_tok); Py_XDECREF(b_cum);
    PyBuffer_Release(&sv); PyBuffer_Release(&ev);
    return result;
}

/* ---- tttd-v1 segmentation (docs/contract/tttd-v1.md#segmentation, no snapping) - */

/* First index i in [lo, hi) with a[i] >= v (or > v when `right`), else hi. */
static inline Py_ssize_t search(const int64_t *a, Py_ssize_t lo, Py_ssize_t hi, int64_t v, int right) {
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (right ? a[mid] <= v : a[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* search() in running totals stored as int64 (`wide`) or int32, for base + add, the sum
 * taken exactly: a total past INT64_MAX is reached by no entry (hi), one below
 * INT64_MIN by every entry (lo). A direct call may pass any running totals and limits. */
static inline int64_t cum_at(const void *a, int wide, Py_ssize_t i) {
    return wide ? ((const int64_t *)a)[i] : (int64_t)((const int32_t *)a)[i];
}

static inline Py_ssize_t search_cum(const void *a, int wide, Py_ssize_t lo, Py_ssize_t hi, int64_t base, int64_t add,
                                    int right) {
    if (add > 0 && base > INT64_MAX - add) return hi;
    if (add < 0 && base < INT64_MIN - add) return lo;
    int64_t v = base + add;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        int64_t x = cum_at(a, wide, mid);
        if (right ? x <= v : x < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* search() for an answer expected at or after `hint`: galloping from there (hint, hint + 1,
 * hint + 3, ...) and a binary search within the last step, so an answer d entries on
 * costs about 2 log2(d) reads near the hint instead of log2(hi - lo) reads spread over
 * the array. The segment walk's answers move forward a chunk at a time, a few dozen
 * entries. A hint past the answer is found out and searched below it: any hint gives
 * search()'s result. */
static inline Py_ssize_t gallop(const int64_t *a, Py_ssize_t lo, Py_ssize_t hi, int64_t v, Py_ssize_t hint) {
    if (hint < lo) hint = lo;
    if (hint > hi) hint = hi;
    if (hint > lo && a[hint - 1] >= v) return search(a, lo, hint, v, 0);
    Py_ssize_t prev = hint, probe = hint, step = 1; /* every entry before prev is below v */
    while (probe < hi && a[probe] < v) { prev = probe + 1; probe += step; step <<= 1; }
    return search(a, prev, probe < hi ? probe : hi, v, 0);
}

/* search_cum() by galloping from lo (gallop): the answer is a chunk's length from lo. */
static inline Py_ssize_t gallop_cum(const void *a, int wide, Py_ssize_t lo, Py_ssize_t hi, int64_t base, int64_t add,
                                    int right) {
    if (add > 0 && base > INT64_MAX - add) return hi;
    if (add < 0 && base < INT64_MIN - add) return lo;
    const int64_t v = base + add;
    Py_ssize_t prev = lo, probe = lo, step = 1; /* every entry before prev goes right of v */
    while (probe < hi) {
        int64_t x = cum_at(a, wide, probe);
        if (!(right ? x <= v : x < v)) break;
        prev = probe + 1; probe += step; step <<= 1;
    }
    return search_cum(a, wide, prev, probe < hi ? probe : hi, base, add, right);
}

static int get_int64s(PyObject *obj, Py_buffer *view, const char *what) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
    if (view->itemsize != 8 || view->format == NULL || (strcmp(view->format, "l") && strcmp(view->format, "q"))) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_TypeError, "%s must be an int64 array", what);
        return -1;
    }
    return 0;
}

/* segment(cum, primary, backup, min_tokens, max_tokens) -> (count, starts, ends, kinds)
 * The chunk-by-chunk walk of segment.py: searches (gallop) over the cumulative tokens
 * and the sorted candidate positions, each from where the chunk before left off. min/max arrive clamped to the total + 1. Kinds:
 * 0 primary, 1 backup, 2 hard, 3 end. */
static PyObject *segment(PyObject *self, PyObject *args) {
    PyObject *o_cum, *o_primary, *o_backup;
    long long min_tokens, max_tokens;
    if (!PyArg_ParseTuple(args, "OOOLL", &o_cum, &o_primary, &o_backup, &min_tokens, &max_tokens)) return NULL;
    Py_buffer cv, pv, bv;
    /* the running total: int64, or int32 (chars4_totals narrow) */
    if (PyObject_GetBuffer(o_cum, &cv, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    const int wide = cv.itemsize == 8;
    if (!(cv.format && ((wide && (!strcmp(cv.format, "l") || !strcmp(cv.format, "q"))) ||
                        (cv.itemsize == 4 && !strcmp(cv.format, "i"))))) {
        PyBuffer_Release(&cv);
        PyErr_SetString(PyExc_TypeError, "cum must be an int64 or int32 array");
        return NULL;
    }
    if (get_int64s(o_primary, &pv, "primary") < 0) { PyBuffer_Release(&cv); return NULL; }
    if (get_int64s(o_backup, &bv, "backup") < 0) { PyBuffer_Release(&cv); PyBuffer_Release(&pv); return NULL; }
    const void *cum = cv.buf;
    const int64_t *primary = pv.buf, *backup = bv.buf;
    Py_ssize_t n = cv.len / cv.itemsize - 1, n_primary = pv.len / 8, n_backup = bv.len / 8;
    PyObject *b_starts = NULL, *b_ends = NULL, *b_kinds = NULL, *result = NULL;
    if (n < 0) { PyErr_SetString(PyExc_ValueError, "cum must have n + 1 entries"); goto done; }
    /* every chunk holds a word: at most n chunks */
    b_starts = new_buffer(n * 8); b_ends = new_buffer(n * 8); b_kinds = new_buffer(n);
    if (!b_starts || !b_ends || !b_kinds) goto done;
    int64_t *starts = (int64_t *)PyBytes_AS_STRING(b_starts), *ends = (int64_t *)PyBytes_AS_STRING(b_ends);
    u8 *kinds = (u8 *)PyBytes_AS_STRING(b_kinds);
    Py_ssize_t count = 0;
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t s = 0, at_primary = 0, at_backup = 0; /* where the last searches of the lists ended */
    while (s < n) {
        int64_t base = cum_at(cum, wide, s);
        /* first i >= s whose inclusion brings the chunk to min_tokens */
        Py_ssize_t i_min = gallop_cum(cum, wide, s, n + 1, base, min_tokens, 0) - 1;
        if (i_min < s) i_min = s;
        /* first i > s whose inclusion would exceed max_tokens (n if none) */
        Py_ssize_t i_over = gallop_cum(cum, wide, s, n + 1, base, max_tokens, 1) - 1;
        if (i_over <= s) i_over = s + 1;
        Py_ssize_t limit = i_over < n ? i_over : n, end;
        u8 kind;
        Py_ssize_t k = at_primary = gallop(primary, 0, n_primary, i_min, at_primary);
        if (k < n_primary && primary[k] < limit) { end = primary[k] + 1; kind = 0; }
        else if (i_over < n) {
            k = (at_backup = gallop(backup, 0, n_backup, limit, at_backup)) - 1;
            if (k >= 0 && backup[k] >= i_min) { end = backup[k] + 1; kind = 1; }
            else { end = i_over; kind = 2; }
        } else { end = n; kind = 3; }
        starts[count] = s; ends[count] = end; kinds[count] = kind;
        count++;
        s = end;
    }
    Py_END_ALLOW_THREADS
    if (shrink(&b_starts, count * 8) < 0 || shrink(&b_ends, count * 8) < 0 || shrink(&b_kinds, count) < 0) goto done;
    result = Py_BuildValue("nOOO", count, b_starts, b_ends, b_kinds);
done:
    Py_XDECREF(b_starts); Py_XDECREF(b_ends); Py_XDECREF(b_kinds);
    PyBuffer_Release(&cv); PyBuffer_Release(&pv); PyBuffer_Release(&bv);
    return result;
}

/* ---- lmx2-v1 (docs/contract/lmx2-v1.md#keys, docs/contract/lmx2-v1.md#cuts) ---- */

static int get_typed(PyObject *obj, Py_buffer *view, Py_ssize_t itemsize, const char *what) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS) < 0) return -1;
    if (view->len % itemsize != 0) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_TypeError, "%s must be an array of %zd-byte items", what, itemsize);
        return -1;
    }
    return 0;
}

static inline u64 fmix64(u64 z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* lmx2_keys(symbols, cum, classes, key_tokens, prefer, base, base_inverse, dense_limit[, keep_h]) ->
 *     (h, key_1, key_2), h None when keep_h is false
 * For every cut c in 0..n: the Horner hash h(c) of symbols a..c-1, where a is the first
 * word with cum[a] >= cum[c] - key_tokens (at most c - 1), and the two keys of
 * docs/contract/lmx2-v1.md#keys (0 at both edges). Outputs: uint64 arrays of n + 1.
 *
 * `cum` must be a running total (0 first, never decreasing) and base_inverse base's
 * inverse: ValueError otherwise. When the document has fewer than dense_limit tokens
 * (any real text: a word is a few tokens; never more than dense_cap), h comes from
 * lmx2.window_hashes' prefix form, h(c) = B^(c-1) (P[c] - P[a]) with P the prefix sums
 * of s_i B^-i, and a(c) follows the window's start (next_start), mostly without a
 * branch. Otherwise the window slides: append s_(c-1), then drop the symbols that
 * left it, each times B^(c-1-a); its exit test mispredicts about once a word, which
 * dominates the stage. Both are the same sums mod 2^64 (B is odd, so invertible). */
/* Whatever dense_limit says, a table (or a line of blocks) is never more than this many
 * slots: 64 per word or position and a megabyte's worth. It bounds memory and time, and
 * keeps every offset on the line far inside int64. */
static inline u64 dense_cap(Py_ssize_t count) { return (u64)64 * (u64)count + ((u64)1 << 20); }

static int running_total(const int64_t *cum, Py_ssize_t n) {
    int ok = cum[0] == 0;
    for (Py_ssize_t c = 1; c <= n; c++) ok &= cum[c] >= cum[c - 1];
    return ok;
}

/* a(c) for c = 1, 2, ... in turn: the first word at or past cum[c] - key_tokens, at most
 * c - 1. It never moves back, and on real text moves a word or so a cut: one step of up to
 * two words is taken without a branch (cum[x + 1] < low implies cum[x] < low), and a
 * loop, rarely entered (a long word joining the window), takes the rest. *at is kept at
 * most c - 1, so every read stays inside cum whatever it holds (it is checked as it is
 * read, window_hashes_dense), and restarting below the true start only costs steps. */
static inline Py_ssize_t next_start(const int64_t *cum, int64_t key_tokens, Py_ssize_t c, Py_ssize_t *at) {
    int64_t low = (int64_t)((u64)cum[c] - (u64)key_tokens); /* wraps only where cum is no running total */
    Py_ssize_t x = *at;
    x += (Py_ssize_t)(cum[x] < low) + (Py_ssize_t)(cum[x + 1] < low);
    while (x < c - 1 && cum[x] < low) x++;
    x = x < c - 1 ? x : c - 1;
    *at = x;
    return x;
}

/* One pass: the prefix sum P[c] is written before any window reads it (a(c) < c), so the
 * prefix sums, the window hashes and the check that cum is a running total share it.
 * With `ringed` (a constant at each call) the prefix sums are kept in a ring of `mask` + 1
 * slots (a power of two), P[c] at c & mask, else in an array over every cut: a window of a running total with a token or more a word spans at most
 * key_tokens + 1 of them, so a ring that wide holds every one a window reads, and no
 * array of them over every cut is made. Returns 1, 0 when cum is no running total (the
 * hashes are then garbage, but every read stayed inside the arrays), -1 when a window
 * reached past the ring (words of no token: the caller retries with a ring of all). */
static inline __attribute__((always_inline)) int window_hashes_dense(
    const u64 *sym, const int64_t *cum, Py_ssize_t n, int64_t key_tokens, u64 base, u64 base_inv, u64 *prefix,
    const int ringed, Py_ssize_t mask, u64 *h) {
    /* The powers of B^-1 and of B run as two interleaved sequences (even and odd c),
     * each stepped by the square: a multiply's latency is paid every other word. */
#define RING(i) (ringed ? (i) & mask : (i))
    const u64 inv2 = base_inv * base_inv, base2 = base * base;
    u64 acc = 0, inv_e = 1, inv_o = base_inv; /* B^-(c-1) for c odd, c even */
    u64 scale_e = 1, scale_o = base;          /* B^(c-1) for c odd, c even */
    Py_ssize_t at = 0, c = 1;
    int ok = cum[0] == 0, held = 1; /* held: every window start was still in the ring */
    prefix[0] = 0;
    h[0] = 0;
    for (; c + 1 <= n; c += 2) {
        u64 x = sym[c - 1] * inv_e, y = sym[c] * inv_o;
        inv_e *= inv2;
        inv_o *= inv2;
        u64 pc = acc + x;
        acc += x + y;
        prefix[RING(c)] = pc;
        prefix[RING(c + 1)] = acc;
        ok &= (cum[c] >= cum[c - 1]) & (cum[c + 1] >= cum[c]);
        /* P[c + 1] is written too: a start a reads right while c + 1 - a <= mask */
        Py_ssize_t a = next_start(cum, key_tokens, c, &at);
        if (ringed) held &= c + 1 - a <= mask;
        h[c] = scale_e * (pc - prefix[RING(a)]);
        a = next_start(cum, key_tokens, c + 1, &at);
        if (ringed) held &= c + 1 - a <= mask;
        h[c + 1] = scale_o * (acc - prefix[RING(a)]);
        scale_e *= base2;
        scale_o *= base2;
    }
    if (c <= n) {
        u64 pc = acc + sym[c - 1] * inv_e;
        prefix[RING(c)] = pc;
        ok &= cum[c] >= cum[c - 1];
        Py_ssize_t a = next_start(cum, key_tokens, c, &at);
        if (ringed) held &= c - a <= mask;
        h[c] = scale_e * (pc - prefix[RING(a)]);
    }
    return ok ? (held ? 1 : -1) : 0;
#undef RING
}

static void window_hashes_sliding(const u64 *sym, const int64_t *cum, Py_ssize_t n, int64_t key_tokens,
                                  u64 base, u64 base_inv, u64 *h) {
    h[0] = 0;
    u64 acc = 0, pw = 0; /* acc = h over words [a, c-1], pw = base^(c-1-a) */
    Py_ssize_t a = 0;
    for (Py_ssize_t c = 1; c <= n; c++) {
        acc = acc * base + sym[c - 1];
        pw = c == 1 ? 1 : pw * base;
        int64_t low = cum[c] - key_tokens;
        while (a < c - 1 && cum[a] < low) {
            acc -= sym[a] * pw;
            pw *= base_inv;
            a++;
        }
        h[c] = acc;
    }
}

/* key_j of cut c from its window hash (docs/contract/lmx2-v1.md#keys). */
static inline u64 key_of(u64 hc, u8 cls, int prefer, u64 j) {
    return (prefer ? (u64)cls << 61 : 0) | (fmix64(hc ^ j) >> 3) | 1;
}

/* lmx2_keys(symbols, cum, classes, key_tokens, prefer, base, base_inv, dense_limit,
 * keep_h=True, keys=True) -> (h or None, key_1 or None, key_2 or None). Without keep_h
 * the hashes are written where key_1 goes; with keys=False only the hashes are made
 * (lmx2_key_of makes a key from them where one is read): 8 bytes a cut instead of 16. */
static PyObject *lmx2_keys(PyObject *self, PyObject *args) {
    PyObject *o_sym, *o_cum, *o_cls;
    long long key_tokens, dense_limit;
    int prefer, keep_h = 1, want_keys = 1;
    unsigned long long base, base_inv;
    if (!PyArg_ParseTuple(args, "OOOLpKKL|pp", &o_sym, &o_cum, &o_cls, &key_tokens, &prefer, &base, &base_inv,
                          &dense_limit, &keep_h, &want_keys)) return NULL;
    if (!want_keys) keep_h = 1;
    Py_buffer sv, cv, rv;
    if (get_typed(o_sym, &sv, 8, "symbols") < 0) return NULL;
    if (get_int64s(o_cum, &cv, "cum") < 0) { PyBuffer_Release(&sv); return NULL; }
    if (get_typed(o_cls, &rv, 1, "classes") < 0) { PyBuffer_Release(&sv); PyBuffer_Release(&cv); return NULL; }
    PyObject *b_h = NULL, *b_k1 = NULL, *b_k2 = NULL, *result = NULL;
    u64 *ring = NULL;
    Py_ssize_t n = sv.len / 8;
    if (cv.len / 8 != n + 1 || rv.len != n + 1) {
        PyErr_SetString(PyExc_ValueError, "cum and classes must have one entry more than symbols");
        goto done;
    }
    const int64_t *cum = cv.buf;
    if (key_tokens < 0) { PyErr_SetString(PyExc_ValueError, "key_tokens must be >= 0"); goto done; }
    /* a running total is >= 0 throughout, so cum[c] - key_tokens cannot overflow in
     * either way (where cum is none, next_start's difference wraps, and is discarded) */
    int dense = n < INT32_MAX && cum[n] < dense_limit && (u64)cum[n] <= dense_cap(n + 1);
    /* the dense pass checks cum as it reads it; the sliding one needs it checked first */
    if (!dense && !running_total(cum, n)) goto not_running;
    if ((u64)base * (u64)base_inv != 1) { PyErr_SetString(PyExc_ValueError, "base_inverse is not base's inverse mod 2^64"); goto done; }
    if (keep_h) b_h = pool_buffer((n + 1) * 8);
    if (want_keys) { b_k1 = pool_buffer((n + 1) * 8); b_k2 = pool_buffer((n + 1) * 8); }
    if ((keep_h && !b_h) || (want_keys && (!b_k1 || !b_k2))) goto done;
    {
        const u64 *sym = sv.buf;
        const u8 *cls = rv.buf;
        u64 *k1 = want_keys ? (u64 *)BUF(b_k1) : NULL, *k2 = want_keys ? (u64 *)BUF(b_k2) : NULL;
        u64 *h = keep_h ? (u64 *)BUF(b_h) : k1;
        /* the dense pass's ring of prefix sums: wide enough for every window of a total
         * that grows by a token or more a word, or for every cut when that is fewer */
        Py_ssize_t slots = 2;
        while (slots < n + 2 && (u64)slots < (u64)key_tokens + 2) slots <<= 1;
        int running = 1;
        /* with the keys, key_2 holds the prefix sums until the keys overwrite them */
        if (dense && !want_keys && !(ring = PyMem_Malloc(slots * 8))) { PyErr_NoMemory(); goto done; }
        Py_BEGIN_ALLOW_THREADS
        if (dense && want_keys) {
            running = window_hashes_dense(sym, cum, n, key_tokens, base, base_inv, k2, 0, 0, h);
        } else if (dense) {
            running = window_hashes_dense(sym, cum, n, key_tokens, base, base_inv, ring, 1, slots - 1, h);
            if (running < 0) { /* words of no token widened a window past the ring: a ring of every cut */
                u64 *all = NULL;
                Py_ssize_t every = 2;
                while (every < n + 2) every <<= 1;
                Py_BLOCK_THREADS
                all = PyMem_Realloc(ring, every * 8);
                Py_UNBLOCK_THREADS
                if (all) {
                    ring = all;
                    running = window_hashes_dense(sym, cum, n, key_tokens, base, base_inv, ring, 1, every - 1, h);
                } else running = 2; /* out of memory, reported below */
            }
        } else
            window_hashes_sliding(sym, cum, n, key_tokens, base, base_inv, h);
        if (running == 1 && want_keys) {
            for (Py_ssize_t c = 0; c <= n; c++) {
                u64 hc = h[c]; /* h may be k1: read first */
                k1[c] = key_of(hc, cls[c], prefer, 1);
                k2[c] = key_of(hc, cls[c], prefer, 2);
            }
            k1[0] = k2[0] = k1[n] = k2[n] = 0;
        }
        Py_END_ALLOW_THREADS
        if (running == 2) { PyErr_NoMemory(); goto done; }
        if (running != 1) goto not_running;
    }
    result = Py_BuildValue("OOO", keep_h ? b_h : Py_None, want_keys ? b_k1 : Py_None, want_keys ? b_k2 : Py_None);
    goto done;
not_running:
    PyErr_SetString(PyExc_ValueError, "cum must be a running total: 0 first, never decreasing");
done:
    PyMem_Free(ring);
    Py_XDECREF(b_h); Py_XDECREF(b_k1); Py_XDECREF(b_k2);
    PyBuffer_Release(&sv); PyBuffer_Release(&cv); PyBuffer_Release(&rv);
    return result;
}

/* lmx2_key_of(h, classes, prefer, j, at=None) -> uint64 bytes: key_j of the cuts `at`
 * (int64 cut indices; None: every cut 0..n) from their window hashes h (n + 1 of them);
 * the edges 0 and n hold 0, as lmx2_keys writes them. */
static PyObject *lmx2_key_of(PyObject *self, PyObject *args) {
    PyObject *o_h, *o_cls, *o_at = Py_None;
    int prefer;
    unsigned long long j;
    if (!PyArg_ParseTuple(args, "OOpK|O", &o_h, &o_cls, &prefer, &j, &o_at)) return NULL;
    Py_buffer hv, rv, av = {0};
    if (get_typed(o_h, &hv, 8, "h") < 0) return NULL;
    if (get_typed(o_cls, &rv, 1, "classes") < 0) { PyBuffer_Release(&hv); return NULL; }
    if (o_at != Py_None && get_int64s(o_at, &av, "at") < 0) { PyBuffer_Release(&hv); PyBuffer_Release(&rv); return NULL; }
    PyObject *out = NULL;
    Py_ssize_t n1 = hv.len / 8, m = o_at == Py_None ? n1 : av.len / 8;
    const int64_t *at = o_at == Py_None ? NULL : av.buf;
    if (rv.len != n1 || n1 < 1) { PyErr_SetString(PyExc_ValueError, "h and classes must cover the same cuts"); goto done; }
    for (Py_ssize_t k = 0; at && k < m; k++)
        if (at[k] < 0 || at[k] >= n1) { PyErr_SetString(PyExc_IndexError, "a cut index is out of range"); goto done; }
    if (!(out = pool_buffer(m * 8))) goto done;
    {
        const u64 *h = hv.buf;
        const u8 *cls = rv.buf;
        u64 *key = (u64 *)BUF(out);
        Py_ssize_t last = n1 - 1;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t k = 0; k < m; k++) {
            Py_ssize_t c = at ? (Py_ssize_t)at[k] : k;
            key[k] = (c == 0 || c == last) ? 0 : key_of(h[c], cls[c], prefer, (u64)j);
        }
        Py_END_ALLOW_THREADS
    }
done:
    PyBuffer_Release(&hv); PyBuffer_Release(&rv);
    if (o_at != Py_None) PyBuffer_Release(&av);
    return out;
}

/* local_maxima(values, pos, reach, candidates, dense_limit) -> bytes of one flag per
 * candidate: values[i] >= values[j] for every j with |pos[j] - pos[i]| <= reach. `pos`
 * must increase strictly and `candidates` (indices into values) must increase
 * (ValueError otherwise), or be None: every index, with no array of them made;
 * `reach` is unsigned, and any int64 positions are exact.
 *
 * Every index (candidates None, the cold path of both key stages) is answered by
 * local_maxima_walk, linear in the values whatever they are. A list of candidates (a
 * wider horizon testing the maxima of a narrower one) is answered per candidate:
 * when the positions span fewer than dense_limit tokens (and no more than dense_cap,
 * whatever the caller asks), the values are laid out by
 * position (0 where no value is: it never raises a maximum of unsigned values) and every
 * window, 2 reach + 1 wide, is answered by van Herk and Gil-Werman's method: cut the
 * line into blocks of the window's width; a window covers the end of one block and the
 * start of the next, so its maximum is the larger of a suffix maximum of the first and
 * a prefix maximum of the second. Two blocks are held at a time. No branch depends on
 * the values. Otherwise (a sparse line, or a window over 65,535 wide) a monotonic queue
 * of indices whose values decrease keeps each window's maximum at its head (its pops
 * mispredict about once an index, which dominates the stage). */
#define MAX_BLOCK_REACH 32767

static int strictly_increasing(const int64_t *pos, Py_ssize_t m) {
    int ok = 1;
    for (Py_ssize_t i = 1; i < m; i++) ok &= pos[i] > pos[i - 1];
    return ok;
}

/* Distances are unsigned differences: exact for increasing int64 positions anywhere,
 * where pos[i] +- reach could leave int64. */
static void local_maxima_queue(const u64 *val, const int64_t *pos, Py_ssize_t m, u64 reach,
                               const int64_t *cand, Py_ssize_t n_cand, Py_ssize_t *queue, u8 *flag) {
    Py_ssize_t head = 0, tail = 0, next = 0; /* queue[head:tail]; indices below `next` were offered */
    for (Py_ssize_t k = 0; k < n_cand; k++) {
        Py_ssize_t i = cand ? (Py_ssize_t)cand[k] : k;
        while (next < m && (next <= i || (u64)pos[next] - (u64)pos[i] <= reach)) {
            while (tail > head && val[queue[tail - 1]] <= val[next]) tail--;
            queue[tail++] = next++;
        }
        /* i was offered, and only indices before it can be out of reach */
        while (queue[head] < i && (u64)pos[i] - (u64)pos[queue[head]] > reach) head++;
        flag[k] = val[i] >= val[queue[head]];
    }
}

/* Block `b` of the line padded by `reach` zeros before it: the values by offset. Index i
 * lies at pos[i] - pos[0] + reach on that line (the span is at most dense_cap). */
static Py_ssize_t fill_block(u64 *raw, Py_ssize_t width, Py_ssize_t b, const u64 *val, const int64_t *pos,
                             Py_ssize_t m, Py_ssize_t next, Py_ssize_t reach) {
    memset(raw, 0, (size_t)width * sizeof(u64));
    u64 start = (u64)b * (u64)width, stop = start + (u64)width;
    for (; next < m; next++) {
        u64 at = (u64)pos[next] - (u64)pos[0] + (u64)reach;
        if (at >= stop) break;
        raw[at - start] = val[next];
    }
    return next;
}

/* candidate k: cand[k], or k itself when cand is NULL (every index is a candidate) */
#define CAND(k) (cand ? (Py_ssize_t)cand[k] : (Py_ssize_t)(k))

/* `reach` is at most the span and MAX_BLOCK_REACH; `work` holds 4 (2 reach + 1) + 1 values */
static void local_maxima_blocks(const u64 *val, const int64_t *pos, Py_ssize_t m, Py_ssize_t reach,
                                const int64_t *cand, Py_ssize_t n_cand, u64 *work, u8 *flag) {
    Py_ssize_t width = 2 * reach + 1; /* the window of i starts at pos[i] - pos[0] on the padded line */
    u64 *cur = work, *nxt = work + width, *suffix = work + 2 * width, *prefix = work + 3 * width; /* prefix: width + 1 */
    Py_ssize_t next = fill_block(cur, width, 0, val, pos, m, 0, reach);
    Py_ssize_t k = 0;
    for (Py_ssize_t b = 0; k < n_cand; b++) {
        next = fill_block(nxt, width, b + 1, val, pos, m, next, reach);
        u64 block_start = (u64)b * (u64)width, block_stop = block_start + (u64)width;
        if ((u64)pos[CAND(k)] - (u64)pos[0] < block_stop) {
            /* two independent running maxima in one loop: each waits on its own last step only */
            u64 back = 0, ahead = 0;
            prefix[0] = 0;
            for (Py_ssize_t j = 0, t = width - 1; j < width; j++, t--) {
                back = cur[t] > back ? cur[t] : back;
                suffix[t] = back;
                ahead = nxt[j] > ahead ? nxt[j] : ahead;
                prefix[j + 1] = ahead;
            }
            for (; k < n_cand; k++) {
                u64 x = (u64)pos[CAND(k)] - (u64)pos[0];
                if (x >= block_stop) break;
                Py_ssize_t j = (Py_ssize_t)(x - block_start);
                u64 most = suffix[j] > prefix[j] ? suffix[j] : prefix[j];
                flag[k] = val[CAND(k)] >= most;
            }
        }
        u64 *t = cur; cur = nxt; nxt = t;
    }
}

/* Every index a candidate: one forward walk. `f` runs ahead of i over values no larger
 * than val[i]; the first larger one within reach beats i and every index between (it is
 * within reach of them all), so the walk jumps to it, and the indices it skipped are
 * never looked at again. An index nothing beats on its right is tested on its left, but
 * only below `lo`: [lo, i) are known to be no larger than val[i]. Equal values both
 * qualify, so an index equal to val[i] in the stretch (i, f) is tested in turn, with the
 * same lo and f. f only increases and the left tests of successive stretches do not
 * overlap: O(m) comparisons whatever the values, and on hash keys the branches go one
 * way for runs as long as a window (a window has a few ascending records). Returns
 * whether pos increases strictly (f passes every index once; on positions that do not,
 * the walk still reads only inside the arrays and ends, and its flags are dropped). */
static int local_maxima_walk(const u64 *val, const int64_t *pos, Py_ssize_t m, u64 reach, u8 *flag,
                             int64_t *found, Py_ssize_t *n_found, int64_t offset) {
    if (flag) memset(flag, 0, (size_t)m);
    Py_ssize_t count = 0;
    Py_ssize_t i = 0, f = 1, lo = 0;
    int ok = 1; /* pos increases strictly: each index is checked against the one before as f passes it */
    while (i < m) {
        const u64 v = val[i], p = (u64)pos[i];
        while (f < m && (u64)pos[f] - p <= reach && val[f] <= v) {
            ok &= pos[f] > pos[f - 1];
            f++;
        }
        if (f < m && (u64)pos[f] - p <= reach) { /* val[f] > v: [lo, f) are all below it */
            ok &= pos[f] > pos[f - 1];
            i = f++;
            continue;
        }
        Py_ssize_t k = lo - 1;
        while (k >= 0 && p - (u64)pos[k] <= reach && val[k] <= v) k--;
        lo = k + 1;
        int most = !(k >= 0 && p - (u64)pos[k] <= reach);
        if (flag) flag[i] = (u8)most;
        else if (most) found[count++] = (int64_t)i + offset;
        Py_ssize_t t = i + 1;
        while (t < f && val[t] != v) t++;
        if (t < f) { /* a tie: (t, f) and [lo, t) are no larger than it either */
            i = t;
            continue;
        }
        if (f < m) ok &= pos[f] > pos[f - 1];
        i = lo = f++;
    }
    if (n_found) *n_found = count;
    return ok;
}

static PyObject *local_maxima(PyObject *self, PyObject *args) {
    PyObject *o_val, *o_pos, *o_cand;
    unsigned long long reach;
    long long dense_limit;
    /* reach unsigned: a window as wide as any span of int64 positions must be expressible */
    if (!PyArg_ParseTuple(args, "OOKOL", &o_val, &o_pos, &reach, &o_cand, &dense_limit)) return NULL;
    Py_buffer vv, pv, cv = {0};
    if (get_typed(o_val, &vv, 8, "values") < 0) return NULL;
    if (get_int64s(o_pos, &pv, "pos") < 0) { PyBuffer_Release(&vv); return NULL; }
    int all = o_cand == Py_None;
    if (!all && get_int64s(o_cand, &cv, "candidates") < 0) { PyBuffer_Release(&vv); PyBuffer_Release(&pv); return NULL; }
    Py_ssize_t m = vv.len / 8, n_cand = all ? m : cv.len / 8;
    PyObject *out = NULL;
    void *work = NULL;
    if (pv.len / 8 != m) { PyErr_SetString(PyExc_ValueError, "values and pos must have the same length"); goto done; }
    const int64_t *cand = all ? NULL : cv.buf, *pos = pv.buf;
    if (!all && !strictly_increasing(pos, m)) { PyErr_SetString(PyExc_ValueError, "pos must increase strictly"); goto done; }
    for (Py_ssize_t k = 0; cand && k < n_cand; k++) {
        if (cand[k] < 0 || cand[k] >= m || (k && cand[k] <= cand[k - 1])) {
            PyErr_SetString(PyExc_ValueError, "candidates must be increasing indices into values");
            goto done;
        }
    }
    u64 span = m ? (u64)pos[m - 1] - (u64)pos[0] : 0; /* exact: the positions increase */
    u64 r = reach < span ? reach : span;                /* a wider window sees no more */
    /* the blocks' buffers are four windows wide: a window wider than 65,535 goes to the queue */
    int dense = n_cand && dense_limit > 0 && span < (u64)dense_limit && span <= dense_cap(m) && r <= MAX_BLOCK_REACH;
    out = pool_buffer(n_cand);
    work = all ? PyMem_Malloc(1) : dense ? PyMem_New(u64, 4 * (2 * r + 1) + 1) : (void *)PyMem_New(Py_ssize_t, m ? m : 1);
    if (!out || !work) { if (!work) PyErr_NoMemory(); Py_CLEAR(out); goto done; }
    {
        const u64 *val = vv.buf;
        u8 *flag = BUF(out);
        int increasing = 1;
        Py_BEGIN_ALLOW_THREADS
        if (all)
            increasing = local_maxima_walk(val, pos, m, r, flag, NULL, NULL, 0);
        else if (dense)
            local_maxima_blocks(val, pos, m, (Py_ssize_t)r, cand, n_cand, work, flag);
        else
            local_maxima_queue(val, pos, m, reach, cand, n_cand, work, flag);
        Py_END_ALLOW_THREADS
        if (!increasing) { PyErr_SetString(PyExc_ValueError, "pos must increase strictly"); Py_CLEAR(out); }
    }
done:
    PyMem_Free(work);
    PyBuffer_Release(&vv); PyBuffer_Release(&pv);
    if (!all) PyBuffer_Release(&cv);
    return out;
}

/* local_maxima_at(values, pos, reach, offset) -> bytes of int64: offset + i for every
 * index i that local_maxima(values, pos, reach, None) flags, in order (the walk records
 * them as it finds them: no flag per index, no pass to collect them). */
static PyObject *local_maxima_at(PyObject *self, PyObject *args) {
    PyObject *o_val, *o_pos;
    unsigned long long reach;
    long long offset;
    if (!PyArg_ParseTuple(args, "OOKL", &o_val, &o_pos, &reach, &offset)) return NULL;
    Py_buffer vv, pv;
    if (get_typed(o_val, &vv, 8, "values") < 0) return NULL;
    if (get_int64s(o_pos, &pv, "pos") < 0) { PyBuffer_Release(&vv); return NULL; }
    Py_ssize_t m = vv.len / 8, count = 0;
    PyObject *out = NULL;
    int64_t *found = NULL;
    if (pv.len / 8 != m) { PyErr_SetString(PyExc_ValueError, "values and pos must have the same length"); goto done; }
    const int64_t *pos = pv.buf;
    u64 span = m ? (u64)pos[m - 1] - (u64)pos[0] : 0;
    u64 r = reach < span ? reach : span;
    /* room for every index, of which the pages past the few maxima are never touched */
    if (!(found = PyMem_New(int64_t, m ? m : 1))) { PyErr_NoMemory(); goto done; }
    {
        const u64 *val = vv.buf;
        int increasing;
        Py_BEGIN_ALLOW_THREADS
        increasing = local_maxima_walk(val, pos, m, r, NULL, found, &count, (int64_t)offset);
        Py_END_ALLOW_THREADS
        if (!increasing) { PyErr_SetString(PyExc_ValueError, "pos must increase strictly"); goto done; }
    }
    out = PyBytes_FromStringAndSize((const char *)found, count * 8);
done:
    PyMem_Free(found);
    PyBuffer_Release(&vv); PyBuffer_Release(&pv);
    return out;
}

/* ---- lmx2-v1 in passes over the words, for a document chunked once ----------------
 * lmx2_cuts draws every cut from the symbols: key_1 maxima, E, S, the fill zone and Q,
 * with each window hash and key made where it is read from prefix sums of the symbols
 * made as the walk goes (lmx2_prefix writes them all, for a caller that wants them),
 * and the token positions read from a running total or counted (chars4/1) from the
 * scan's offsets. Every per-cut value a walk reads lies within its reach of tokens; a
 * word has a token or more, so it lies within as many cuts, and a ring of them is all a
 * walk keeps. */

/* Where the token count of a word comes from: a running total (int64 or int32), or
 * chars4/1 of the scan's int32 offsets, ceil(code points / 4). */
typedef struct {
    const void *cum;
    int wide;
    const int32_t *st, *en;
} TokenSource;

/* The smallest power of two >= want, and never more than one above every + 1. */
static Py_ssize_t ring_slots(u64 want, Py_ssize_t every) {
    Py_ssize_t slots = 4;
    while (slots <= every && (u64)slots < want) slots <<= 1;
    return slots;
}

/* Parse a token source: `cum` (a running total, int64 or int32) or None with `starts`
 * and `ends` (int32 offsets, n each). Returns 1 or 2 (what release_token_source
 * releases), -1 on error. */
static int get_token_source(PyObject *o_cum, PyObject *o_st, PyObject *o_en, Py_ssize_t n, TokenSource *t,
                            Py_buffer *cv, Py_buffer *sv, Py_buffer *ev) {
    memset(t, 0, sizeof *t);
    if (o_cum != Py_None) {
        if (PyObject_GetBuffer(o_cum, cv, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
        int wide = cv->itemsize == 8;
        if (!(cv->format && ((wide && (!strcmp(cv->format, "l") || !strcmp(cv->format, "q"))) ||
                             (cv->itemsize == 4 && !strcmp(cv->format, "i"))))) {
            PyBuffer_Release(cv);
            PyErr_SetString(PyExc_TypeError, "cum must be an int64 or int32 array");
            return -1;
        }
        if (cv->len / cv->itemsize != n + 1) {
            PyBuffer_Release(cv);
            PyErr_SetString(PyExc_ValueError, "cum must have one entry more than there are words");
            return -1;
        }
        t->cum = cv->buf;
        t->wide = wide;
        return 1;
    }
    if (get_typed(o_st, sv, 4, "starts") < 0) return -1;
    if (get_typed(o_en, ev, 4, "ends") < 0) { PyBuffer_Release(sv); return -1; }
    if (sv->len != n * 4 || ev->len != n * 4) {
        PyBuffer_Release(sv); PyBuffer_Release(ev);
        PyErr_SetString(PyExc_ValueError, "starts and ends must have one entry a word");
        return -1;
    }
    t->st = sv->buf;
    t->en = ev->buf;
    return 2;
}

static void release_token_source(int kind, Py_buffer *cv, Py_buffer *sv, Py_buffer *ev) {
    if (kind == 1) PyBuffer_Release(cv);
    if (kind == 2) { PyBuffer_Release(sv); PyBuffer_Release(ev); }
}

static inline int source_mode(const TokenSource *t) { return t->cum ? (t->wide ? 1 : 2) : 0; }

/* The tokens of word k, the source a constant at each call: 0 chars4/1 of the offsets
 * (st, en), 1 an int64 running total, 2 an int32 one (cum). */
static inline __attribute__((always_inline)) int64_t tokens_as(const int32_t *st, const int32_t *en, const void *cum,
                                                               Py_ssize_t k, const int mode) {
    if (mode == 0) return ((int64_t)en[k] - (int64_t)st[k] + 3) >> 2;
    if (mode == 1) return ((const int64_t *)cum)[k + 1] - ((const int64_t *)cum)[k];
    return (int64_t)((const int32_t *)cum)[k + 1] - ((const int32_t *)cum)[k];
}

/* lmx2_prefix(symbols, base_inverse, in_place) -> bytes or None
 * P[c] = sum of s_i B^-i over i < c (mod 2^64) for c = 1..n, at index c - 1: the
 * window hash of cut c is h(c) = B^(c-1) (P[c] - P[a]) (lmx2.window_hashes). With
 * in_place they are written over the symbols (each symbol is read before its slot is
 * written) and None is returned: the caller must hold the only reference to the
 * symbols' memory, which then no longer holds symbols; memory that may not be written
 * (bytes, a read-only array) is refused with ValueError. */
static PyObject *lmx2_prefix(PyObject *self, PyObject *args) {
    PyObject *o_sym;
    unsigned long long base_inv;
    int in_place;
    if (!PyArg_ParseTuple(args, "OKp", &o_sym, &base_inv, &in_place)) return NULL;
    Py_buffer symv;
    if (in_place) { /* written over: memory that may not be written is refused, not written */
        if (PyObject_GetBuffer(o_sym, &symv, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
            /* (numpy refuses a writable view of a read-only array with ValueError) */
            if (!PyErr_ExceptionMatches(PyExc_BufferError) && !PyErr_ExceptionMatches(PyExc_ValueError)) return NULL;
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "symbols must be writable when in_place is true");
            return NULL;
        }
        if (symv.len % 8 != 0) {
            PyBuffer_Release(&symv);
            PyErr_SetString(PyExc_TypeError, "symbols must be an array of 8-byte items");
            return NULL;
        }
    } else if (get_typed(o_sym, &symv, 8, "symbols") < 0) return NULL;
    Py_ssize_t n = symv.len / 8;
    PyObject *out = NULL;
    if (!in_place && !(out = pool_buffer(n * 8))) { PyBuffer_Release(&symv); return NULL; }
    {
        const u64 *sym = symv.buf;
        u64 *p = in_place ? (u64 *)symv.buf : (u64 *)BUF(out);
        const u64 inv2 = (u64)base_inv * (u64)base_inv;
        Py_BEGIN_ALLOW_THREADS
        /* two interleaved power sequences, each stepped by the square: a multiply's
         * latency is paid every other word */
        u64 acc = 0, inv_e = 1, inv_o = base_inv;
        Py_ssize_t k = 0;
        for (; k + 1 < n; k += 2) {
            u64 x = sym[k] * inv_e, y = sym[k + 1] * inv_o;
            inv_e *= inv2;
            inv_o *= inv2;
            p[k] = acc += x;
            p[k + 1] = acc += y;
        }
        if (k < n) p[k] = acc + sym[k] * inv_e;
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&symv);
    if (in_place) Py_RETURN_NONE;
    return out;
}

/* A growing list of int64. */
typedef struct { int64_t *at; Py_ssize_t count, cap; int failed; } List;

static inline void list_add(List *l, int64_t v) {
    if (l->count == l->cap) {
        Py_ssize_t cap = l->cap ? 2 * l->cap : 256;
        int64_t *grown = l->failed ? NULL : PyMem_RawRealloc(l->at, (size_t)cap * sizeof(int64_t));
        if (!grown) { l->failed = 1; return; }
        l->at = grown;
        l->cap = cap;
    }
    l->at[l->count++] = v;
}

/* Room for `cap` entries in all, made at once where the count is known: no doubling
 * slack, and no old and new block held together while the list grows. */
static void list_reserve(List *l, Py_ssize_t cap) {
    if (cap <= l->cap || l->failed) return;
    int64_t *grown = PyMem_RawRealloc(l->at, (size_t)cap * sizeof(int64_t));
    if (!grown) { l->failed = 1; return; }
    l->at = grown;
    l->cap = cap;
}

/* Lets a list's memory go once nothing reads it (its count and failure stay). */
static void list_drop(List *l) {
    PyMem_RawFree(l->at);
    l->at = NULL;
    l->cap = 0;
}

/* The sequence a walk reads: element j in ring slot j & mask (its cut, position and
 * key), made in order on demand. */
typedef struct {
    Py_ssize_t mask, made;
    int done;
    u64 *val;
    int64_t *pos, *cut;
} Ring;

/* B^e from two tables: e = 1024 q + r, B^e = hi[q] lo[r]. */
typedef struct { u64 lo[1024]; u64 *hi; } Powers;

static int powers_make(Powers *w, u64 base, Py_ssize_t top) {
    w->lo[0] = 1;
    for (int k = 1; k < 1024; k++) w->lo[k] = w->lo[k - 1] * base;
    const u64 step = w->lo[1023] * base;
    Py_ssize_t count = top / 1024 + 2;
    if (!(w->hi = PyMem_RawMalloc((size_t)count * 8))) return -1;
    w->hi[0] = 1;
    for (Py_ssize_t q = 1; q < count; q++) w->hi[q] = w->hi[q - 1] * step;
    return 0;
}

static inline u64 power_of(const Powers *w, Py_ssize_t e) { return w->hi[e >> 10] * w->lo[e & 1023]; }

/* What both walks' elements are made from, and the cursor that makes them. */
typedef struct {
    const u64 *sym;      /* the word symbols */
    Py_ssize_t n;
    const u8 *para, *sent;
    int prefer;
    TokenSource tok;
    const Powers *pw;    /* B^e */
    const Powers *pwinv; /* B^-e */
    u64 base_inv;
    int64_t key_tokens;
    int64_t *cumr;       /* the positions of the last kmask + 1 cuts, cut c at c & kmask */
    u64 *prer;           /* their prefix sums P (from some origin: h reads differences) */
    Py_ssize_t kmask;
    /* the cursor: the next cut c, its position, the start of its key window (or a word
     * at or before it) */
    Py_ssize_t c, a;
    int64_t pos;
    u64 acc, invp;       /* P at cut c (from the origin of prer), B^-c */
    int ok;              /* every word had a token or more */
    /* the long-word cuts E (with their positions) */
    int64_t min_tokens;
    List *edges, *edge_pos;
    /* walk 2: the cuts E | S in order, with their positions, and the gate */
    const int64_t *chosen, *chosen_pos;
    Py_ssize_t n_chosen, next_chosen;
    int64_t gate;
    Py_ssize_t stepped;  /* the cuts before it have their positions in cumr, their P in prer */
    u64 acc_stepped;     /* P at cut `stepped` */
} Cursor;

static void cursor_start(Cursor *s) {
    s->c = 1;
    s->a = 0;
    s->cumr[0] = 0;
    s->prer[0] = 0;
    s->acc = s->n ? s->sym[0] : 0; /* P[1] = s_0 B^0 */
    s->invp = s->base_inv;
    s->pos = s->n ? tokens_as(s->tok.st, s->tok.en, s->tok.cum, 0, source_mode(&s->tok)) : 0;
    s->ok &= !s->n || s->pos >= 1;
}

/* a + b and a - b, held to the int64 range: a limit past every position is as good as
 * any other, and a direct call may pass any key window or gate. */
static inline int64_t add_held(int64_t a, int64_t b) {
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}

static inline int64_t sub_held(int64_t a, int64_t b) {
    int64_t r;
    return __builtin_sub_overflow(a, b, &r) ? (b > 0 ? INT64_MIN : INT64_MAX) : r;
}

/* a(c): the first word at or past pos(c) - key_tokens, at most c - 1, sought from a
 * (at most a(c)) in the ring of positions, which holds cuts a .. c (window_hashes_dense's
 * next_start). */
static inline __attribute__((always_inline)) Py_ssize_t window_start(const int64_t *cumr, Py_ssize_t km,
                                                                     Py_ssize_t a, Py_ssize_t c, int64_t low) {
    a += (Py_ssize_t)(cumr[a & km] < low) + (Py_ssize_t)(cumr[(a + 1) & km] < low);
    while (a < c - 1 && cumr[a & km] < low) a++;
    return a < c - 1 ? a : c - 1;
}

/* key_j of a cut of window hash h and class bits `cls` (already shifted and masked) */
static inline __attribute__((always_inline)) u64 key_of_hash(u64 h, u64 cls, u64 j) {
    return cls | (fmix64(h ^ j) >> 3) | 1;
}

/* Notes the long-word cuts of word c, of t tokens at position pos (E, walk 1). */
static void note_long(Cursor *s, Py_ssize_t c, int64_t pos, int64_t t) {
    if (!s->edges->count || s->edges->at[s->edges->count - 1] != c) {
        list_add(s->edges, c);
        list_add(s->edge_pos, pos);
    }
    list_add(s->edges, c + 1);
    list_add(s->edge_pos, pos + t);
}

#define RING_BATCH 64

/* walk 2: the cuts of the fill zone, with key_2: between two chosen cuts, those at
 * least `gate` tokens from both. Everything the loop reads is held in locals: its
 * stores (int64, as Py_ssize_t is) could otherwise alias the structs' fields, which
 * would be read again at every cut. A stretch between two chosen cuts narrower than two
 * gates has no zone and is passed over whole (both ends' positions are known); one with
 * a zone is stepped through from a key window before its start (the positions written
 * back from the start's and the prefix sums on from there, once per word: the cursor
 * never moves back), and each zone cut's key window is sought from the last. */
static inline __attribute__((always_inline)) void make_zone_as(Cursor *s, Ring *r, Py_ssize_t want, const int mode) {
    Py_ssize_t c = s->c, made = r->made, next = s->next_chosen, a = s->a, stepped = s->stepped;
    const Py_ssize_t n = s->n, mask = r->mask, km = s->kmask, n_chosen = s->n_chosen;
    int64_t pos = s->pos;
    u64 acc = s->acc, invp = s->invp, acc_stepped = s->acc_stepped;
    const u64 *sym = s->sym, base_inv = s->base_inv;
    u64 *restrict prer = s->prer;
    const Powers *pw = s->pw;
    const int64_t gate = s->gate, *chosen = s->chosen, *chosen_pos = s->chosen_pos, key_tokens = s->key_tokens;
    const u8 *para = s->para, *sent = s->sent;
    const int32_t *st = s->tok.st, *en = s->tok.en;
    const void *cum = s->tok.cum;
    int64_t *restrict ring_cut = r->cut, *restrict ring_pos = r->pos, *restrict cumr = s->cumr;
    u64 *restrict ring_val = r->val;
    const u64 top = s->prefer ? ~(u64)0 : 0;
#define STEP_WORD()                                         \
    do {                                                    \
        cumr[c & km] = pos;                                 \
        prer[c & km] = acc;                                 \
        pos += tokens_as(st, en, cum, c, mode);             \
        acc += sym[c] * invp;                               \
        invp *= base_inv;                                   \
        c++;                                                \
    } while (0)
    while (made < want && c < n) {
        /* chosen[next - 1] <= c < chosen[next] (the last chosen cut is n) */
        while (next < n_chosen && chosen[next] <= c) next++;
        const Py_ssize_t head = (Py_ssize_t)chosen[next - 1];
        int64_t from = add_held(chosen_pos[next - 1], gate);
        int64_t to = next < n_chosen ? sub_held(chosen_pos[next], gate) : INT64_MAX;
        Py_ssize_t until = next < n_chosen ? (Py_ssize_t)chosen[next] : n;
        if (from > to) { /* no zone: on to the next chosen cut */
            if (next >= n_chosen) { c = n; break; }
            c = until;
            pos = chosen_pos[next];
            continue;
        }
        if (c == head && c > stepped) {
            /* the positions and prefix sums of the key windows before the stretch, from
             * the last word stepped or a window before its start (each word once): the
             * positions back from the start's, the sums on from those stepped or from 0
             * (a window starts at or after `back`, and h reads differences of P) */
            Py_ssize_t back = (u64)c - 1 > (u64)key_tokens ? c - 1 - (Py_ssize_t)key_tokens : 0;
            if (back < stepped) back = stepped;
            int64_t x = pos;
            for (Py_ssize_t k = c - 1; k >= back; k--) {
                x -= tokens_as(st, en, cum, k, mode);
                cumr[k & km] = x;
            }
            acc = back == stepped ? acc_stepped : 0;
            invp = power_of(s->pwinv, back);
            for (Py_ssize_t k = back; k < c; k++) {
                prer[k & km] = acc;
                acc += sym[k] * invp;
                invp *= base_inv;
            }
        }
        if (c == head) STEP_WORD(); /* a chosen cut is never in the zone (gate 0) */
        /* the cuts before the zone of this stretch */
        while (c < until && pos < from) STEP_WORD();
        /* the zone's cuts, up to `to`; a window holds at most key_tokens + 1 words */
        if (c < until && pos <= to && (u64)(c - 1 - a) > (u64)key_tokens) a = c - 1 - key_tokens;
        while (c < until && pos <= to && made < want) {
            cumr[c & km] = pos;
            a = window_start(cumr, km, a, c, sub_held(pos, key_tokens));
            u64 cls = ((u64)(2 * para[c] + (sent[c - 1] & (para[c] ^ 1))) << 61) & top;
            Py_ssize_t slot = made & mask;
            ring_cut[slot] = c;
            ring_pos[slot] = pos;
            prer[c & km] = acc;
            ring_val[slot] = key_of_hash(power_of(pw, c - 1) * (acc - prer[a & km]), cls, 2);
            made++;
            pos += tokens_as(st, en, cum, c, mode);
            acc += sym[c] * invp;
            invp *= base_inv;
            c++;
        }
        stepped = c;
        acc_stepped = acc;
        if (made >= want) break;
        /* the rest of the stretch: on to the next chosen cut */
        if (next >= n_chosen) { c = n; break; }
        c = until;
        pos = chosen_pos[next];
    }
#undef STEP_WORD
    s->c = c; s->pos = pos; s->a = a; s->next_chosen = next; s->stepped = stepped;
    s->acc = acc; s->invp = invp; s->acc_stepped = acc_stepped;
    r->made = made;
}

static void make_zone(Cursor *s, Ring *r, Py_ssize_t want) {
    switch (source_mode(&s->tok)) {
    case 0: make_zone_as(s, r, want, 0); break;
    case 1: make_zone_as(s, r, want, 1); break;
    default: make_zone_as(s, r, want, 2);
    }
}

/* Makes elements up to j + RING_BATCH (the ring has room for them, see ring_walk):
 * whether element j exists. */
static inline __attribute__((always_inline)) int fill_ring(Ring *r, Cursor *s,
                                                           void (*make)(Cursor *, Ring *, Py_ssize_t), Py_ssize_t j) {
    make(s, r, j + RING_BATCH + 1);
    if (r->made <= j) { r->done = 1; return 0; }
    return 1;
}

/* local_maxima_walk over the ring's sequence: appends the cut (and position) of every
 * element whose key no element within `reach` tokens beats. Besides a position, an
 * element is read only within reach + 1 elements of the one tested (positions rise by
 * a token or more), and elements are made up to RING_BATCH past the one read, so a ring
 * of more than 2 reach + 2 + RING_BATCH slots holds all it reads. */
static inline __attribute__((always_inline)) void ring_walk(Ring *r, Cursor *s,
                                                            void (*make)(Cursor *, Ring *, Py_ssize_t), u64 reach,
                                                            List *found, List *found_pos) {
#define HAVE(j) ((j) < r->made || (!r->done && fill_ring(r, s, make, (j))))
#define VAL(j) r->val[(j) & r->mask]
#define POS(j) ((u64)r->pos[(j) & r->mask])
    Py_ssize_t i = 0, f = 1, lo = 0;
    while (HAVE(i)) {
        const u64 v = VAL(i), p = POS(i);
        while (HAVE(f) && POS(f) - p <= reach && VAL(f) <= v) f++;
        if (HAVE(f) && POS(f) - p <= reach) { i = f++; continue; }
        Py_ssize_t k = lo - 1;
        while (k >= 0 && (u64)(i - k) <= reach && p - POS(k) <= reach && VAL(k) <= v) k--;
        lo = k + 1;
        if (!(k >= 0 && (u64)(i - k) <= reach && p - POS(k) <= reach)) {
            list_add(found, r->cut[i & r->mask]);
            if (found_pos) list_add(found_pos, r->pos[i & r->mask]);
        }
        Py_ssize_t t = i + 1;
        while (t < f && VAL(t) != v) t++;
        if (t < f) { i = t; continue; }
        i = lo = f++;
    }
#undef HAVE
#undef VAL
#undef POS
}

/* ---- walk 1: the key_1 maxima, with keys made only where a comparison needs them ----
 * Under the class preference a key's top bits are its cut's class, so a cut of class 1
 * or 2 (a "barrier": a paragraph or sentence end, a few in a hundred cuts of prose)
 * beats every cut of class 0, whatever their keys. The maxima are then
 *   - among the barriers: those whose key no barrier within the horizon beats (only a
 *     barrier can beat a barrier), a walk over the barriers alone;
 *   - among the cuts of class 0: those with no barrier within the horizon, whose key no
 *     cut within it beats (all of class 0). They lie in gaps between barriers more than
 *     two horizons wide (more than one at either end of the document), and only such
 *     gaps are walked cut by cut.
 * One pass makes every cut's position and class (and E, and the barriers' keys); the
 * walk of a gap follows it within a ring of cuts, so nothing is kept per word. Without
 * the preference there is no barrier and the one gap is the document. A cut's slot
 * holds its class bits until its key is made (a key has its low bit set, class bits
 * alone never do). */

/* The barriers walk 1 still reads, barrier j (counted from the document's first) at
 * index j - off: the barrier walk reads none more than `reach` barriers behind the one it
 * tests (positions rise by a token or more), and the gap walk the one after its gap, so
 * the older ones are dropped when the store fills, and it grows only when the barriers
 * still read fill half of it or more (by a horizon's worth, never with the document). */
typedef struct {
    int64_t *cut, *pos;
    u64 *key;
    Py_ssize_t off, count, keyed, cap; /* barriers off .. count - 1 held, keyed up to `keyed` */
    int failed;
} Bars;

/* What walk 1 reads: cut c's position at pos[c & mask] and its key (or class bits) at
 * val[c & mask], for every cut from a key window behind the oldest one compared to the
 * newest made; and the barriers still read, with their positions and keys. */
typedef struct {
    const u64 *sym;
    const u8 *para, *sent;
    TokenSource tok;
    Py_ssize_t n, mask, made; /* cuts 0 .. made - 1 have their slots */
    int64_t *pos;
    u64 *val, *pre;           /* key or class bits, and the prefix sum P, of each cut */
    u64 acc, invp, base_inv;  /* P at cut `made`, B^-made */
    u64 inv8[9];              /* B^-k, k = 0..8 */
    const Powers *pw;
    int64_t key_tokens, min_tokens, next_pos; /* next_pos: the position of cut `made` */
    int prefer, ok;
    List *edges, *edge_pos;
    Bars bar;
    Py_ssize_t gap_bar;       /* the barrier after the gap walked (the oldest one it reads) */
    /* the barrier walk (MAXIMA_WALK's i, f, lo), resumed as barriers are made, and the
     * maxima it found */
    u64 reach;
    Py_ssize_t bi, bf, blo;
    List bmax, bmax_pos;
    Py_ssize_t width; /* c - 1 - a(c) of the last key made */
} Walk1;

/* Makes room for one more barrier: drops the barriers no walk reads again, and grows
 * the store when those still read fill half of it or more. */
static __attribute__((noinline)) void bar_room(Walk1 *w) {
    Bars *b = &w->bar;
    Py_ssize_t keep = (u64)w->bi > w->reach ? w->bi - (Py_ssize_t)w->reach : 0;
    if (keep > w->gap_bar) keep = w->gap_bar;
    if (keep > b->keyed) keep = b->keyed;
    if (keep > b->off) {
        Py_ssize_t drop = keep - b->off, live = b->count - keep;
        memmove(b->cut, b->cut + drop, (size_t)live * 8);
        memmove(b->pos, b->pos + drop, (size_t)live * 8);
        memmove(b->key, b->key + drop, (size_t)live * 8);
        b->off = keep;
    }
    if (2 * (b->count - b->off) >= b->cap) {
        Py_ssize_t cap = b->cap ? 2 * b->cap : 256;
        int64_t *cut = b->failed ? NULL : PyMem_RawRealloc(b->cut, (size_t)cap * 8);
        if (cut) b->cut = cut;
        int64_t *bp = cut ? PyMem_RawRealloc(b->pos, (size_t)cap * 8) : NULL;
        if (bp) b->pos = bp;
        u64 *key = bp ? PyMem_RawRealloc(b->key, (size_t)cap * 8) : NULL;
        if (key) b->key = key;
        if (!key) { b->failed = 1; return; }
        b->cap = cap;
    }
}

/* Lists barrier c at position pos. */
static inline __attribute__((always_inline)) void bar_add(Walk1 *w, Py_ssize_t c, int64_t pos) {
    Bars *b = &w->bar;
    if (__builtin_expect(b->count - b->off == b->cap, 0)) {
        bar_room(w);
        if (b->failed) return;
    }
    b->cut[b->count - b->off] = c;
    b->pos[b->count - b->off] = pos;
    b->count++;
}

static inline Py_ssize_t bar_cut(const Walk1 *w, Py_ssize_t j) { return (Py_ssize_t)w->bar.cut[j - w->bar.off]; }
static inline int64_t bar_pos(const Walk1 *w, Py_ssize_t j) { return w->bar.pos[j - w->bar.off]; }

/* a(c), the first word of cut c's key window (docs/contract/lmx2-v1.md#keys), from the
 * positions: sought from where the last window's width puts it (windows of a text are
 * about as wide as each other), by steps that double away from that guess and then
 * halve, so a window of any width costs a few probes. It reads nothing before
 * c - 1 - key_tokens, whose position is at least key_tokens + 1 below c's on a running
 * total of a token or more a word (and whose slot may already hold a newer cut). */
static inline Py_ssize_t key_window_start(Walk1 *w, Py_ssize_t c) {
    const int64_t *pos = w->pos;
    const Py_ssize_t m = w->mask;
    const int64_t low = sub_held(pos[c & m], w->key_tokens);
    /* a lies in (lo, hi]: lo before the window (or -1), hi in it (or c - 1) */
    Py_ssize_t hi = c - 1, lo = w->key_tokens >= (int64_t)c ? -1 : c - 1 - (Py_ssize_t)w->key_tokens;
    if (pos[hi & m] < low) return hi;
    Py_ssize_t g = c - 1 - w->width, d = 1;
    if (g > lo && g < hi) {
        if (pos[g & m] >= low) {
            hi = g;
            while (hi - d > lo && pos[(hi - d) & m] >= low) { hi -= d; d <<= 1; }
            if (hi - d > lo) lo = hi - d;
        } else {
            lo = g;
            while (lo + d < hi && pos[(lo + d) & m] < low) { lo += d; d <<= 1; }
            if (lo + d < hi) hi = lo + d;
        }
    } else {
        while (hi - d > lo && pos[(hi - d) & m] >= low) { hi -= d; d <<= 1; }
        if (hi - d > lo) lo = hi - d;
    }
    while (hi - lo > 1) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (pos[mid & m] >= low) hi = mid; else lo = mid;
    }
    w->width = c - 1 - hi;
    return hi;
}

/* key_1 of interior cut c, made once and kept in its slot. */
static inline u64 walk1_key(Walk1 *w, Py_ssize_t c) {
    u64 *slot = &w->val[c & w->mask];
    if (*slot & 1) return *slot;
    Py_ssize_t a = key_window_start(w, c);
    u64 h = power_of(w->pw, c - 1) * (w->pre[c & w->mask] - w->pre[a & w->mask]);
    return *slot = *slot | (fmix64(h ^ 1) >> 3) | 1;
}

/* Makes the slots of cuts up to `upto` (cut n included once upto reaches it):
 * position and class bits; notes the long-word cuts and checks the tokens of each
 * word, and lists each barrier with its key. */
static inline __attribute__((always_inline)) void walk1_make_as(Walk1 *w, Py_ssize_t upto, const int mode) {
    Py_ssize_t c = w->made;
    const Py_ssize_t n = w->n, m = w->mask, stop = upto < n ? upto : n;
    int64_t pos = w->next_pos;
    /* (a barrier's key is made once its slots are written, by walk1_make) */
    int64_t *restrict pr = w->pos;
    u64 *restrict val = w->val, *restrict pre = w->pre;
    u64 acc = w->acc, invp = w->invp;
    const u64 *sym = w->sym, base_inv = w->base_inv;
    const u8 *para = w->para, *sent = w->sent;
    const int32_t *st = w->tok.st, *en = w->tok.en;
    const void *cum = w->tok.cum;
    const int64_t min_tokens = w->min_tokens;
    const int prefer = w->prefer;
    int ok = 1;
    /* the tokens of word c: the token check, the long-word cuts, the next position */
#define WORD_TOKENS()                                                                          \
    do {                                                                                       \
        int64_t t = tokens_as(st, en, cum, c, mode);                                           \
        ok &= t >= 1;                                                                          \
        if (__builtin_expect(t >= min_tokens, 0)) {                                            \
            List *e = w->edges, *ep = w->edge_pos;                                             \
            if (!e->count || e->at[e->count - 1] != c) { list_add(e, c); list_add(ep, pos); }  \
            list_add(e, c + 1);                                                                \
            list_add(ep, pos + t);                                                             \
        }                                                                                      \
        pos += t;                                                                              \
        acc += sym[c] * invp;                                                                  \
        invp *= base_inv;                                                                      \
    } while (0)
    /* eight cuts at a time, with no test of a class where none of them is a barrier */
    while (c < stop) {
        int block = stop - c >= 8 ? 8 : (int)(stop - c), plain = !prefer;
        if (block == 8 && prefer) {
            u64 pw_, sw_;
            memcpy(&pw_, para + c, 8);
            memcpy(&sw_, sent + c - 1, 8);
            plain = !(pw_ | sw_);
        }
        if (plain && block == 8) {
            /* the block's tokens first (no long word among them: its slots need nothing
             * else), then its slots, with the eight powers B^-(c+k) made apart */
            int64_t t8[8];
            int bad = 0, long8 = 0;
            for (int k = 0; k < 8; k++) {
                t8[k] = tokens_as(st, en, cum, c + k, mode);
                bad |= t8[k] < 1;
                long8 |= t8[k] >= min_tokens;
            }
            if (!long8) {
                for (int k = 0; k < 8; k++) {
                    const Py_ssize_t at = (c + k) & m;
                    pr[at] = pos;
                    val[at] = 0;
                    pre[at] = acc;
                    pos += t8[k];
                    acc += sym[c + k] * (invp * w->inv8[k]);
                }
                invp *= w->inv8[8];
                ok &= !bad;
                c += 8;
                continue;
            }
        }
        if (plain) {
            for (int k = 0; k < block; k++, c++) {
                pr[c & m] = pos;
                val[c & m] = 0;
                pre[c & m] = acc;
                WORD_TOKENS();
            }
            continue;
        }
        for (int k = 0; k < block; k++, c++) {
            pr[c & m] = pos;
            val[c & m] = 0;
            pre[c & m] = acc;
            if (para[c] | sent[c - 1]) {
                val[c & m] = (u64)(para[c] ? 2 : 1) << 61;
                bar_add(w, c, pos);
            }
            WORD_TOKENS();
        }
    }
#undef WORD_TOKENS
    if (c == n && upto >= n) pr[c++ & m] = pos; /* cut n: a position, no key */
    w->made = c;
    w->next_pos = pos;
    w->acc = acc;
    w->invp = invp;
    w->ok &= ok;
}

static void barrier_advance(Walk1 *w, int final);

static void walk1_make(Walk1 *w, Py_ssize_t upto) {
    switch (source_mode(&w->tok)) {
    case 0: walk1_make_as(w, upto, 0); break;
    case 1: walk1_make_as(w, upto, 1); break;
    default: walk1_make_as(w, upto, 2);
    }
    /* the keys of the barriers just listed (their windows are in the ring) */
    Bars *b = &w->bar;
    if (b->failed) return;
    for (; b->keyed < b->count; b->keyed++)
        b->key[b->keyed - b->off] = walk1_key(w, (Py_ssize_t)b->cut[b->keyed - b->off]);
    if (w->bi < b->count) barrier_advance(w, 0);
}

/* local_maxima_walk (ring_walk) over elements FIRST, FIRST + 1, ... (positions rising
 * by a token or more): REPORTs every element from START on whose key no element within
 * `reach` tokens beats, and FLOOR_OK accepts. HAVE(j) says whether element j exists
 * (making it if needed), KEY(j) and POS(j) read it, AT_MOST(j, v) and DIFFERS(j, v)
 * compare its key with a made one, STOP_AT(f, p) whether element f, past the last one
 * HAVE gives, beats every element at p (then no later one is reported). */
#define MAXIMA_WALK(HAVE, POS, AT_MOST, DIFFERS, KEY, FIRST, START, FLOOR_OK, REPORT, STOP_AT)             \
    do {                                                                                                    \
        Py_ssize_t i = (START), f = i + 1, lo = i;                                                          \
        while (HAVE(i)) {                                                                                   \
            const u64 v = KEY(i), p = POS(i);                                                               \
            while (HAVE(f) && POS(f) - p <= reach && AT_MOST(f, v)) f++;                                    \
            if (STOP_AT(f, p)) break;                                                                       \
            if (HAVE(f) && POS(f) - p <= reach) { i = f++; continue; }                                      \
            Py_ssize_t k = lo - 1;                                                                          \
            while (k >= (FIRST) && (u64)(i - k) <= reach && p - POS(k) <= reach && AT_MOST(k, v)) k--;      \
            lo = k + 1;                                                                                     \
            if (!(k >= (FIRST) && (u64)(i - k) <= reach && p - POS(k) <= reach) && FLOOR_OK(p)) REPORT(i, p); \
            Py_ssize_t t = i + 1;                                                                           \
            while (t < f && DIFFERS(t, v)) t++;                                                             \
            if (t < f) { i = t; continue; }                                                                 \
            i = lo = f++;                                                                                   \
        }                                                                                                   \
    } while (0)

/* key(c) <= v, v a made key: by the class bits where they decide */
static inline int walk1_at_most(Walk1 *w, Py_ssize_t c, u64 v) {
    u64 x = w->val[c & w->mask];
    if (x & 1) return x <= v;
    if (x > v) return 0;                              /* a higher class */
    if ((x | (((u64)1 << 61) - 1)) <= v) return 1;    /* a lower class */
    return walk1_key(w, c) <= v;
}

static inline int walk1_differs(Walk1 *w, Py_ssize_t c, u64 v) {
    u64 x = w->val[c & w->mask];
    if (x & 1) return x != v;
    if ((x ^ v) >> 61) return 1;
    return walk1_key(w, c) != v;
}

/* The maxima of class 0 in the gap after barrier u (cut 0 when there is none before):
 * the cuts from u + 1 up to the next barrier are walked, and those within reach of
 * either barrier are passed over (a barrier beats them). */
static void walk1_gap(Walk1 *w, Py_ssize_t u, int have_u, u64 reach, List *found, List *found_pos) {
    const Py_ssize_t last = w->n - 1, m = w->mask;
    const u64 upos = have_u ? (u64)w->pos[u & m] : 0;
#define G_MADE(c) ((c) <= last && ((c) < w->made || (walk1_make(w, (c) + RING_BATCH), 1)))
#define G_HAVE(c) (G_MADE(c) && !(w->val[(c) & m] >> 61))
#define G_POS(c) ((u64)w->pos[(c) & m])
#define G_AT_MOST(c, v) walk1_at_most(w, (c), (v))
#define G_DIFFERS(c, v) walk1_differs(w, (c), (v))
#define G_KEY(c) walk1_key(w, (c))
#define G_FLOOR_OK(p) (!have_u || (p) - upos > reach)
#define G_REPORT(c, p) do { list_add(found, (c)); list_add(found_pos, (int64_t)(p)); } while (0)
    /* a barrier within reach after i: no cut from i to it is a maximum */
#define G_STOP_AT(f, p) ((f) <= last && !G_HAVE(f) && G_POS(f) - (p) <= reach)
    /* the walk starts past barrier u's reach: the cuts before are read only as the
     * neighbours of later ones (their keys made only where compared) */
    Py_ssize_t start = u + 1;
    while (have_u && G_HAVE(start) && G_POS(start) - upos <= reach) start++;
    MAXIMA_WALK(G_HAVE, G_POS, G_AT_MOST, G_DIFFERS, G_KEY, u + 1, start, G_FLOOR_OK, G_REPORT, G_STOP_AT);
#undef G_MADE
#undef G_HAVE
#undef G_POS
#undef G_AT_MOST
#undef G_DIFFERS
#undef G_KEY
#undef G_FLOOR_OK
#undef G_REPORT
#undef G_STOP_AT
}

/* The maxima among the barriers (their keys made as they were listed): MAXIMA_WALK over
 * them, written out so that it can stop where a barrier not yet made could be read and
 * go on from there once more are made. Unless `final` (every barrier made), barrier i is
 * tested only once the cuts made reach past its reach: every barrier within reach after
 * it is then made, and one not made is out of reach, as it would be were it made. */
static void barrier_advance(Walk1 *w, int final) {
    const u64 reach = w->reach;
    const Py_ssize_t count = w->bar.count;
    Py_ssize_t i = w->bi, f = w->bf, lo = w->blo;
    if (w->bar.failed) return;
#define B_HAVE(j) ((j) < count)
#define B_POS(j) ((u64)bar_pos(w, (j)))
#define B_KEY(j) w->bar.key[(j) - w->bar.off]
    while (B_HAVE(i)) {
        const u64 v = B_KEY(i), p = B_POS(i);
        if (!final && (u64)w->next_pos - p <= reach) break;
        while (B_HAVE(f) && B_POS(f) - p <= reach && B_KEY(f) <= v) f++;
        if (B_HAVE(f) && B_POS(f) - p <= reach) { i = f++; continue; }
        Py_ssize_t k = lo - 1;
        while (k >= 0 && (u64)(i - k) <= reach && p - B_POS(k) <= reach && B_KEY(k) <= v) k--;
        lo = k + 1;
        if (!(k >= 0 && (u64)(i - k) <= reach && p - B_POS(k) <= reach)) {
            list_add(&w->bmax, bar_cut(w, i));
            list_add(&w->bmax_pos, (int64_t)p);
        }
        Py_ssize_t t = i + 1;
        while (t < f && B_KEY(t) != v) t++;
        if (t < f) { i = t; continue; }
        i = lo = f++;
    }
#undef B_HAVE
#undef B_POS
#undef B_KEY
    w->bi = i; w->bf = f; w->blo = lo;
}

/* Every key_1 maximum over the interior cuts 1 .. n-1, in order, with its position;
 * makes every slot up to cut n (E and the token check cover every word). */
static void walk1_maxima(Walk1 *w, u64 reach, List *found, List *found_pos) {
    const Py_ssize_t last = w->n - 1, m = w->mask;
    /* a gap wider than this (from its barrier, or from cut 1 without one) may hold a maximum */
    const u64 wide2 = reach >= ((u64)1 << 62) ? ~(u64)0 : 2 * reach;
    List gap = {0}, gap_pos = {0};
    Py_ssize_t ui = -1, u = 0;
    for (;;) {
        const Py_ssize_t start = u + 1;
        if (start > last) break;
        if (start >= w->made) walk1_make(w, start + RING_BATCH);
        const int have_u = ui >= 0;
        const u64 from = (u64)w->pos[(have_u ? u : start) & m], need = have_u ? wide2 : reach;
        /* made up to the next barrier, or past where the gap is wide enough */
        w->gap_bar = ui + 1;
        while (w->bar.count <= ui + 1 && w->made <= w->n && (u64)w->next_pos - from <= need && !w->bar.failed)
            walk1_make(w, w->made + RING_BATCH);
        if (w->bar.failed) break;
        if (w->bar.count > ui + 1 && (u64)bar_pos(w, ui + 1) - from <= need) { /* too narrow */
            u = bar_cut(w, ++ui);
            continue;
        }
        walk1_gap(w, u, have_u, reach, &gap, &gap_pos);
        if (w->bar.count <= ui + 1 || w->bar.failed) break; /* the gap ran to the end */
        u = bar_cut(w, ++ui);
    }
    w->gap_bar = w->bar.count;
    walk1_make(w, w->n);
    barrier_advance(w, 1);
    const List bars = w->bmax, bars_pos = w->bmax_pos;
    /* both in order, and disjoint: merged (a list and its positions are read in step:
     * neither once either may be short) */
    const int short_ = gap.failed | gap_pos.failed | bars.failed | bars_pos.failed;
    list_reserve(found, found->count + gap.count + bars.count);
    list_reserve(found_pos, found_pos->count + gap.count + bars.count);
    for (Py_ssize_t x = 0, y = 0; !short_ && (x < gap.count || y < bars.count);) {
        if (y >= bars.count || (x < gap.count && gap.at[x] < bars.at[y])) {
            list_add(found, gap.at[x]); list_add(found_pos, gap_pos.at[x]); x++;
        } else {
            list_add(found, bars.at[y]); list_add(found_pos, bars_pos.at[y]); y++;
        }
    }
    found->failed |= gap.failed | gap_pos.failed | bars.failed | bars_pos.failed | w->bar.failed;
    PyMem_RawFree(gap.at); PyMem_RawFree(gap_pos.at);
    list_drop(&w->bmax); list_drop(&w->bmax_pos);
}

static PyObject *list_bytes(List *l) {
    return PyBytes_FromStringAndSize((const char *)l->at, l->count * 8);
}

/* lmx2_cuts(symbols, para, sentence_ends, prefer, cum, starts, ends, key_tokens, base,
 *           horizon, min_tokens, gate, fill_horizon, maxima) -> (maxima, positions, kinds)
 * The cuts of docs/contract/lmx2-v1.md#cuts from the word symbols (n of them; base odd,
 * ValueError otherwise), the class of each cut from the per-word flags, and the token positions from
 * `cum` (None: chars4/1 of starts and ends). `maxima` (the key_1 maxima of this
 * horizon, int64 cut indices, as returned before) or None: then they are found (walk
 * 1). Returns the maxima, every cut in order (int64, edges included) and the kind of
 * each (uint8: 0 S, 1 Q, 2 E). Passes over the words: walk 1 (with E, or a pass for E
 * alone), S from the maxima and E, walk 2 over the fill zone. ValueError when a word
 * has no token. */
static PyObject *lmx2_cuts(PyObject *self, PyObject *args) {
    PyObject *o_pre, *o_para, *o_sent, *o_cum, *o_st, *o_en, *o_max;
    int prefer;
    unsigned long long horizon, fill_horizon, base;
    long long min_tokens, gate, key_tokens;
    if (!PyArg_ParseTuple(args, "OOOpOOOLKKLLKO", &o_pre, &o_para, &o_sent, &prefer, &o_cum, &o_st, &o_en,
                          &key_tokens, &base, &horizon, &min_tokens, &gate, &fill_horizon, &o_max)) return NULL;
    Py_buffer hv, pv, tv, cv, sv, ev, mv = {0};
    if (get_typed(o_pre, &hv, 8, "symbols") < 0) return NULL;
    if (get_typed(o_para, &pv, 1, "para") < 0) { PyBuffer_Release(&hv); return NULL; }
    if (get_typed(o_sent, &tv, 1, "sentence_ends") < 0) { PyBuffer_Release(&hv); PyBuffer_Release(&pv); return NULL; }
    Py_ssize_t n = pv.len;
    Cursor s;
    memset(&s, 0, sizeof s);
    int kind = get_token_source(o_cum, o_st, o_en, n, &s.tok, &cv, &sv, &ev);
    if (kind < 0) { PyBuffer_Release(&hv); PyBuffer_Release(&pv); PyBuffer_Release(&tv); return NULL; }
    int have_max = o_max != Py_None, failed = 0;
    PyObject *result = NULL, *b_max = NULL, *b_pos = NULL, *b_kind = NULL;
    List maxima = {0}, max_pos = {0}, edges = {0}, edge_pos = {0}, primary = {0}, primary_pos = {0};
    List chosen = {0}, chosen_pos = {0}, fill = {0};
    u64 *ring = NULL, *wval = NULL, *wpre = NULL, *prer = NULL;
    int64_t *cumr = NULL, *mp = NULL, *wpos = NULL;
    Powers pw, pwinv;
    pw.hi = pwinv.hi = NULL;
    if (have_max && get_int64s(o_max, &mv, "maxima") < 0) { have_max = 0; goto done; }
    if (tv.len != n || hv.len / 8 != n) {
        PyErr_SetString(PyExc_ValueError, "symbols, para and sentence_ends must have one entry a word");
        goto done;
    }
    if (min_tokens < 1 || gate < 0 || key_tokens < 0) {
        PyErr_SetString(PyExc_ValueError, "min_tokens must be >= 1, gate and key_tokens >= 0");
        goto done;
    }
    if (kind == 1 && s.tok.wide) {
        /* positions are differences of an int64 total, exact only where it rises from 0
         * or more: one that falls or wraps is refused before any walk reads it */
        const int64_t *t = s.tok.cum;
        int rises = t[0] >= 0;
        for (Py_ssize_t k = 0; k < n; k++) rises &= t[k + 1] > t[k];
        if (!rises) {
            PyErr_SetString(PyExc_ValueError,
                            "every word must have a token or more (an int64 total rises from 0 or more)");
            goto done;
        }
    }
    if (have_max) {
        const int64_t *m = mv.buf;
        for (Py_ssize_t k = 0; k < mv.len / 8; k++)
            if (m[k] < 1 || m[k] >= n || (k && m[k] <= m[k - 1])) {
                PyErr_SetString(PyExc_ValueError, "maxima must be increasing interior cuts");
                goto done;
            }
    }
    u64 widest = horizon > fill_horizon ? horizon : fill_horizon;
    Py_ssize_t slots = ring_slots(widest < ((u64)1 << 60) ? 2 * widest + 4 + RING_BATCH : (u64)1 << 62, n + 1);
    /* a window spans at most key_tokens + 1 words, and a(c) is sought from a(c - 1) */
    Py_ssize_t kslots = ring_slots((u64)key_tokens + 4, n + 2);
    ring = PyMem_Malloc((size_t)slots * 24);
    cumr = PyMem_Malloc((size_t)kslots * 8);
    if (!ring || !cumr) { PyErr_NoMemory(); goto done; }
    /* walk 1's slots reach a key window behind the oldest cut compared, and a horizon
     * and a batch past the newest */
    Py_ssize_t wslots = ring_slots(horizon < ((u64)1 << 60) && (u64)key_tokens < ((u64)1 << 60)
                                       ? 2 * horizon + (u64)key_tokens + RING_BATCH + 8 : (u64)1 << 62, n + 1);
    if (!(base & 1)) { PyErr_SetString(PyExc_ValueError, "base must be odd (invertible mod 2^64)"); goto done; }
    u64 base_inv = base; /* Newton's iteration: each step doubles the correct low bits (3 to start) */
    for (int k = 0; k < 5; k++) base_inv *= 2 - base * base_inv;
    prer = PyMem_Malloc((size_t)kslots * 8);
    if (!prer) { PyErr_NoMemory(); goto done; }
    if (n >= 2 && (powers_make(&pw, base, n) < 0 || powers_make(&pwinv, base_inv, n) < 0)) {
        PyErr_NoMemory();
        goto done;
    }
    if (!have_max && n >= 2) {
        wpos = PyMem_Malloc((size_t)wslots * 8);
        wval = PyMem_Malloc((size_t)wslots * 8);
        wpre = PyMem_Malloc((size_t)wslots * 8);
        if (!wpos || !wval || !wpre) { PyErr_NoMemory(); goto done; }
    }
    s.sym = hv.buf; s.n = n; s.para = pv.buf; s.sent = tv.buf; s.prefer = prefer; s.ok = 1;
    s.key_tokens = key_tokens; s.cumr = cumr; s.kmask = kslots - 1;
    s.prer = prer; s.base_inv = base_inv; s.pwinv = &pwinv;
    s.min_tokens = min_tokens;
    Py_BEGIN_ALLOW_THREADS
    Ring r = {slots - 1, 0, 0, ring, (int64_t *)(ring + slots), (int64_t *)(ring + 2 * slots)};
    /* walk 1 (or a pass for E alone) over cuts 1..n-1, then the last word; E takes 0 first */
    list_add(&edges, 0);
    list_add(&edge_pos, 0);
    s.edges = &edges; s.edge_pos = &edge_pos;
    cursor_start(&s);
    if (n > 1 && s.pos >= min_tokens) { list_add(&edges, 1); list_add(&edge_pos, s.pos); }
    if (!have_max && n >= 2) {
        Walk1 w = {.sym = hv.buf, .para = pv.buf, .sent = tv.buf, .tok = s.tok, .n = n, .mask = wslots - 1,
                   .made = 1, .pos = wpos, .val = wval, .pre = wpre, .acc = s.acc, .invp = s.invp,
                   .base_inv = base_inv, .pw = &pw, .key_tokens = key_tokens, .min_tokens = min_tokens,
                   .next_pos = s.pos, .prefer = prefer, .ok = 1, .edges = &edges, .edge_pos = &edge_pos};
        wpos[0] = 0;
        wpre[0] = 0;
        w.inv8[0] = 1;
        for (int k = 1; k < 9; k++) w.inv8[k] = w.inv8[k - 1] * base_inv;
        w.reach = horizon;
        w.bf = 1;
        walk1_maxima(&w, horizon, &maxima, &max_pos);
        PyMem_RawFree(w.bar.cut); PyMem_RawFree(w.bar.pos); PyMem_RawFree(w.bar.key);
        PyMem_RawFree(w.bmax.at); PyMem_RawFree(w.bmax_pos.at);
        s.c = n; s.pos = w.next_pos; s.ok &= w.ok;
    }
    while (s.c < n) { /* what walk 1 did not reach: every word's tokens are read */
        int64_t t = tokens_as(s.tok.st, s.tok.en, s.tok.cum, s.c, source_mode(&s.tok));
        s.ok &= t >= 1;
        if (t >= min_tokens) note_long(&s, s.c, s.pos, t);
        s.pos += t;
        s.c++;
    }
    /* (no list when its first entry could not be stored: the failure is reported below) */
    if (n && edges.count && edges.at[edges.count - 1] != n) { list_add(&edges, n); list_add(&edge_pos, s.pos); }
    /* S: the maxima no cut of E lies within min_tokens of (E includes the edges) */
    const int64_t *m_at = have_max ? mv.buf : maxima.at;
    Py_ssize_t m_count = have_max ? mv.len / 8 : maxima.count;
    if (have_max && m_count) { /* their positions: one more pass over the words */
        if (!(mp = PyMem_RawMalloc((size_t)m_count * 8))) failed = 1;
        else {
            int64_t pos = 0;
            int mode = source_mode(&s.tok);
            for (Py_ssize_t c = 0, k = 0; c < n && k < m_count; c++) {
                if (c == m_at[k]) mp[k++] = pos;
                pos += tokens_as(s.tok.st, s.tok.en, s.tok.cum, c, mode);
            }
        }
    }
    const int64_t *m_pos = have_max ? mp : max_pos.at;
    /* a list and its positions are read in step: neither once either may be short */
    failed |= maxima.failed | max_pos.failed | edges.failed | edge_pos.failed;
    list_reserve(&primary, m_count);
    list_reserve(&primary_pos, m_count);
    Py_ssize_t e = 0;
    for (Py_ssize_t k = 0; !failed && m_pos && k < m_count && edges.count; k++) {
        int64_t x = m_pos[k];
        while (e < edges.count && edge_pos.at[e] <= x) e++; /* edges[e - 1] <= x < edges[e] */
        int64_t before = e ? x - edge_pos.at[e - 1] : -1, after = e < edges.count ? edge_pos.at[e] - x : min_tokens;
        if (before >= min_tokens && after >= min_tokens) { list_add(&primary, m_at[k]); list_add(&primary_pos, x); }
    }
    /* the maxima's positions are read no more (the maxima themselves are returned) */
    list_drop(&max_pos);
    PyMem_RawFree(mp);
    mp = NULL;
    /* E | S in order, then the fill zone's maxima of key_2 */
    list_reserve(&chosen, edges.count + primary.count);
    list_reserve(&chosen_pos, edges.count + primary.count);
    failed |= primary.failed | primary_pos.failed;
    e = 0;
    for (Py_ssize_t k = 0; !failed && (e < edges.count || k < primary.count);) {
        if (k >= primary.count || (e < edges.count && edges.at[e] < primary.at[k])) {
            list_add(&chosen, edges.at[e]); list_add(&chosen_pos, edge_pos.at[e]); e++;
        } else {
            list_add(&chosen, primary.at[k]); list_add(&chosen_pos, primary_pos.at[k]); k++;
        }
    }
    failed |= maxima.failed | max_pos.failed | edges.failed | edge_pos.failed | primary.failed | primary_pos.failed |
              chosen.failed | chosen_pos.failed;
    list_drop(&edge_pos); /* walk 2 reads the positions from chosen_pos */
    list_drop(&primary_pos);
    if (n >= 2 && !failed && s.ok) { /* (every word's tokens were checked above) */
        s.edges = NULL;
        cursor_start(&s);
        s.pw = &pw; s.stepped = 1; s.acc_stepped = s.acc;
        s.chosen = chosen.at; s.chosen_pos = chosen_pos.at; s.n_chosen = chosen.count; s.next_chosen = 0;
        s.gate = gate;
        r.made = 0; r.done = 0;
        ring_walk(&r, &s, make_zone, fill_horizon, &fill, NULL);
    }
    list_drop(&chosen);
    list_drop(&chosen_pos);
    failed |= fill.failed;
    Py_END_ALLOW_THREADS
    if (failed) { PyErr_NoMemory(); goto done; }
    if (!s.ok) { PyErr_SetString(PyExc_ValueError, "every word must have a token or more"); goto done; }
    b_max = have_max ? (Py_INCREF(o_max), o_max) : list_bytes(&maxima);
    if (!have_max) list_drop(&maxima);
    /* every cut in order (E, S and Q are disjoint lists, each in order), with its kind
     * (E 2, S 0, Q 1), written straight into the result */
    Py_ssize_t total = edges.count + primary.count + fill.count;
    b_pos = new_buffer(total * 8);
    b_kind = new_buffer(total);
    if (!b_max || !b_pos || !b_kind) goto done;
    {
        int64_t *at = (int64_t *)PyBytes_AS_STRING(b_pos);
        u8 *kd = (u8 *)PyBytes_AS_STRING(b_kind);
        for (Py_ssize_t k = 0, q = 0, x = 0, j = 0; j < total; j++) {
            int64_t ce = x < edges.count ? edges.at[x] : INT64_MAX, cs = k < primary.count ? primary.at[k] : INT64_MAX;
            int64_t cq = q < fill.count ? fill.at[q] : INT64_MAX;
            if (ce <= cs && ce <= cq) { at[j] = ce; kd[j] = 2; x++; }
            else if (cs <= cq) { at[j] = cs; kd[j] = 0; k++; }
            else { at[j] = cq; kd[j] = 1; q++; }
        }
    }
    result = PyTuple_Pack(3, b_max, b_pos, b_kind);
done:
    Py_XDECREF(b_max); Py_XDECREF(b_pos); Py_XDECREF(b_kind);
    PyMem_Free(ring); PyMem_Free(cumr); PyMem_RawFree(mp);
    PyMem_Free(wpos); PyMem_Free(wval); PyMem_Free(wpre); PyMem_Free(prer);
    PyMem_RawFree(pw.hi); PyMem_RawFree(pwinv.hi);
    List *lists[] = {&maxima, &max_pos, &edges, &edge_pos, &primary, &primary_pos, &chosen, &chosen_pos, &fill};
    for (size_t k = 0; k < sizeof lists / sizeof *lists; k++) PyMem_RawFree(lists[k]->at);
    release_token_source(kind, &cv, &sv, &ev);
    if (have_max) PyBuffer_Release(&mv);
    PyBuffer_Release(&hv); PyBuffer_Release(&pv); PyBuffer_Release(&tv);
    return result;
}

/* ---- xxh3_128 (seed 0, the default secret): the chunk hash --------------------- */
/* (docs/contract/identity.md#chunk-hash) */

static inline void mix_two(u64 acc[2], const u8 *d1, const u8 *d2, const u8 *secret, u64 seed) {
    acc[0] += mix_step(d1, secret, seed);
    acc[1] += mix_step(d2, secret + 16, seed);
    acc[0] ^= rd64(d2) + rd64(d2 + 8);
    acc[1] ^= rd64(d1) + rd64(d1 + 8);
}

/* The 128-bit hash of the specification's "XXH3-128" sections, as (low, high). */
static void xxh3_128(const u8 *in, size_t len, u64 *lo, u64 *hi) {
    const u8 *s = DEFAULT_SECRET;
    if (len == 0) {
        *lo = avalanche_xxh64(rd64(s + 64) ^ rd64(s + 72));
        *hi = avalanche_xxh64(rd64(s + 80) ^ rd64(s + 88));
    } else if (len <= 3) {
        u32 combined = (u32)in[len - 1] | ((u32)len << 8) | ((u32)in[0] << 16) | ((u32)in[len >> 1] << 24);
        u32 swapped = __builtin_bswap32(combined);
        u32 rotated = (swapped << 13) | (swapped >> 19);
        *lo = avalanche_xxh64((u64)(rd32(s) ^ rd32(s + 4)) ^ (u64)combined);
        *hi = avalanche_xxh64((u64)(rd32(s + 8) ^ rd32(s + 12)) ^ (u64)rotated);
    } else if (len <= 8) {
        u64 combined = (u64)rd32(in) | ((u64)rd32(in + len - 4) << 32);
        u64 v = (rd64(s + 16) ^ rd64(s + 24)) ^ combined;
        __uint128_t m = (__uint128_t)v * (P64_1 + ((u64)len << 2));
        u64 high = (u64)(m >> 64), low = (u64)m;
        high += low << 1;
        low ^= high >> 3;
        low ^= low >> 35;
        low *= PMX_2;
        low ^= low >> 28;
        *lo = low;
        *hi = avalanche(high);
    } else if (len <= 16) {
        u64 first = rd64(in), last = rd64(in + len - 8);
        u64 v1 = (rd64(s + 32) ^ rd64(s + 40)) ^ first ^ last;
        u64 v2 = (rd64(s + 48) ^ rd64(s + 56)) ^ last;
        __uint128_t m = (__uint128_t)v1 * P64_1;
        u64 low = (u64)m + ((u64)(len - 1) << 54);
        u64 high = (u64)(m >> 64) + (v2 & 0xFFFFFFFF00000000ULL) + (u64)(u32)v2 * P32_2;
        low ^= __builtin_bswap64(high);
        __uint128_t m2 = (__uint128_t)low * P64_2;
        *lo = avalanche((u64)m2);
        *hi = avalanche((u64)(m2 >> 64) + high * P64_2);
    } else if (len <= 240) {
        u64 acc[2] = {(u64)len * P64_1, 0};
        if (len <= 128) {
            size_t rounds = ((len - 1) >> 5) + 1;
            for (size_t i = rounds; i-- > 0;) mix_two(acc, in + 16 * i, in + len - 16 * i - 16, s + 32 * i, 0);
        } else {
            size_t chunks = len >> 5;
            for (size_t i = 0; i < 4; i++) mix_two(acc, in + 32 * i, in + 32 * i + 16, s + 32 * i, 0);
            acc[0] = avalanche(acc[0]);
            acc[1] = avalanche(acc[1]);
            for (size_t i = 4; i < chunks; i++) mix_two(acc, in + 32 * i, in + 32 * i + 16, s + 32 * (i - 4) + 3, 0);
            mix_two(acc, in + len - 16, in + len - 32, s + 103, 0);
        }
        *lo = avalanche(acc[0] + acc[1]);
        *hi = (u64)0 - avalanche(acc[0] * P64_1 + acc[1] * P64_4 + (u64)len * P64_2);
    } else {
        u64 acc[8];
        xxh3_accumulate(in, len, s, acc);
        *lo = xxh3_merge(acc, s + 11, (u64)len * P64_1);
        *hi = xxh3_merge(acc, s + SECRET_LEN - 75, ~((u64)len * P64_2));
    }
}

static const char HEX[] = "0123456789abcdef";

static inline void put_hex(char *out, u64 v) {
    for (int i = 15; i >= 0; i--, v >>= 4) out[i] = HEX[v & 15];
}

/* Checks the ranges [bs[k], be[k]) against a buffer of `len` bytes (`what` names it in
 * the error): -1 and an error set when one lies outside it. `widest`: the longest range. */
static int check_ranges(const int64_t *bs, const int64_t *be, Py_ssize_t m, Py_ssize_t len, const char *what,
                        Py_ssize_t *widest) {
    *widest = 0;
    for (Py_ssize_t k = 0; k < m; k++) {
        if (bs[k] < 0 || be[k] < bs[k] || be[k] > len) {
            PyErr_Format(PyExc_ValueError, "a chunk's byte range lies outside the %s", what);
            return -1;
        }
        if (be[k] - bs[k] > *widest) *widest = be[k] - bs[k];
    }
    return 0;
}

/* The arguments of chunk_hashes and canonical_hashes, (text, byte_starts, byte_ends,
 * prefix): all four buffers held on success (the caller releases them), none on failure. */
static int hash_arguments(PyObject *args, Py_buffer *dv, Py_buffer *sv, Py_buffer *ev, Py_buffer *pv) {
    PyObject *o_data, *o_starts, *o_ends;
    if (!PyArg_ParseTuple(args, "OOOy*", &o_data, &o_starts, &o_ends, pv)) return -1;
    if (PyObject_GetBuffer(o_data, dv, PyBUF_SIMPLE) < 0) { PyBuffer_Release(pv); return -1; }
    if (get_int64s(o_starts, sv, "byte_starts") < 0) { PyBuffer_Release(pv); PyBuffer_Release(dv); return -1; }
    if (get_int64s(o_ends, ev, "byte_ends") < 0) {
        PyBuffer_Release(pv); PyBuffer_Release(dv); PyBuffer_Release(sv); return -1;
    }
    if (ev->len != sv->len) {
        PyErr_SetString(PyExc_ValueError, "byte_starts and byte_ends differ in length");
        PyBuffer_Release(pv); PyBuffer_Release(dv); PyBuffer_Release(sv); PyBuffer_Release(ev);
        return -1;
    }
    return 0;
}

/* The canonical text (docs/contract/normalizer.md#canonical-text) of the words in the
 * UTF-8 range [p, end), which starts at a word's first byte and ends at a word's last:
 * each word as it is, each gap between two words written as its separator ("\n\n"
 * when it holds two line breaks, as scan() counts them, else " "). Writes at most
 * end - p bytes at o (a separator never outgrows its gap), and may store 16 bytes past
 * them: `o` has end - p + 16 bytes of room. Returns how many it wrote. */
static Py_ssize_t canonical_words(const u8 *p, const u8 *end, u8 *o) {
    u8 *const o0 = o;
    while (p < end) {
#if defined(__SSE2__)
        if (end - p >= 17) {
            /* 16 bytes at once: printable ASCII, and single spaces before printable ASCII
             * (gaps that are their own separator), are taken up to the first other byte.
             * All 16 are stored as they are read (`o` has 16 bytes of room) and the output
             * moves on by as many as were taken: no copy of a run is made apart */
            __m128i v = _mm_loadu_si128((const __m128i *)p), next = _mm_loadu_si128((const __m128i *)(p + 1));
            const __m128i space = _mm_set1_epi8(0x20);
            unsigned printable = (unsigned)_mm_movemask_epi8(_mm_cmpgt_epi8(v, space));
            unsigned before = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(v, space), _mm_cmpgt_epi8(next, space)));
            unsigned other = ~(printable | before) & 0xFFFF;
            _mm_storeu_si128((__m128i *)o, v);
            if (!other) { p += 16; o += 16; continue; }
            unsigned k = (unsigned)__builtin_ctz(other);
            p += k; o += k;
        }
#else
        if (end - p >= 16) { /* word bytes, as scan() reads them */
            int k = printable_prefix(p);
            memcpy(o, p, (size_t)k);
            p += k; o += k;
            if (k == 16) continue;
        }
#endif
        if (p >= end) break;
        u8 b = *p;
        if (b > 0x20 && b < 0x80) { *o++ = b; p++; continue; }
        /* one space before printable ASCII: a gap that is its own separator */
        if (b == ' ' && end - p >= 2 && (u8)(p[1] - 0x21) < 0x5F) { *o++ = ' '; *o++ = p[1]; p += 2; continue; }
        int cls = BYTE_CLASS[b];
        if (cls == C_WORD || (cls >= C_LEAD_C2 && !multibyte_space(p, end, cls))) { *o++ = b; p++; continue; }
        int breaks = 0, prev_cr = 0;
        Py_ssize_t cont = 0; /* not needed here: canonical text is in bytes */
        p = walk_gap(p, end, &breaks, &prev_cr, &cont);
        if (p >= end) break; /* no word follows: no separator */
        if (breaks >= 2) { *o++ = '\n'; *o++ = '\n'; }
        else *o++ = ' ';
    }
    return o - o0;
}

/* A list of 32-hex-digit str, one a chunk: xxh3_128(prefix + 8-byte big-endian length +
 * text) of every range [start, end) of the buffer, as xxhash's hexdigest writes it (high
 * half first): made here, not sliced in Python from one string (a slice a chunk).
 * The text is the range itself, or (canonicalise) the canonical text of its words
 * (canonical_words), made one chunk at a time in a scratch buffer. `what` names the
 * buffer in a range error. */
static PyObject *hash_ranges(PyObject *args, int canonicalise, const char *what) {
    Py_buffer dv, sv, ev, pv;
    if (hash_arguments(args, &dv, &sv, &ev, &pv) < 0) return NULL;
    PyObject *out = NULL;
    u8 *scratch = NULL;
    char *hex = NULL;
    Py_ssize_t m = sv.len / 8, widest = 0;
    const int64_t *bs = sv.buf, *be = ev.buf;
    if (check_ranges(bs, be, m, dv.len, what, &widest) < 0) goto done;
    scratch = PyMem_Malloc(pv.len + 8 + widest + 16); /* canonical_words stores 16 bytes at a time */
    hex = PyMem_Malloc(32 * m + 1);
    if (!scratch || !hex) { PyErr_NoMemory(); goto done; }
    {
        const u8 *data = dv.buf;
        Py_BEGIN_ALLOW_THREADS
        memcpy(scratch, pv.buf, pv.len);
        for (Py_ssize_t k = 0; k < m; k++) {
            u8 *text = scratch + pv.len + 8;
            u64 size, big, lo, hi;
            if (canonicalise) {
                size = (u64)canonical_words(data + bs[k], data + be[k], text);
            } else {
                size = (u64)(be[k] - bs[k]);
                memcpy(text, data + bs[k], size);
            }
            big = __builtin_bswap64(size);
            memcpy(scratch + pv.len, &big, 8);
            xxh3_128(scratch, pv.len + 8 + size, &lo, &hi);
            put_hex(hex + 32 * k, hi);
            put_hex(hex + 32 * k + 16, lo);
        }
        Py_END_ALLOW_THREADS
    }
    if (!(out = PyList_New(m))) goto done;
    for (Py_ssize_t k = 0; k < m; k++) {
        PyObject *digest = PyUnicode_New(32, 127);
        if (!digest) { Py_CLEAR(out); goto done; }
        memcpy(PyUnicode_1BYTE_DATA(digest), hex + 32 * k, 32);
        PyList_SET_ITEM(out, k, digest);
    }
done:
    PyMem_Free(scratch);
    PyMem_Free(hex);
    PyBuffer_Release(&pv); PyBuffer_Release(&dv); PyBuffer_Release(&sv); PyBuffer_Release(&ev);
    return out;
}

/* chunk_hashes(canonical, byte_starts, byte_ends, prefix) -> [hex str]: the hash of every
 * canonical[start:end] (hash_ranges). */
static PyObject *chunk_hashes(PyObject *self, PyObject *args) {
    return hash_ranges(args, 0, "canonical text");
}

/* canonical_hashes(document, byte_starts, byte_ends, prefix) -> [hex str]: chunk_hashes of the
 * canonical text of every document[start:end] (a range from a word's first byte to a
 * word's last), with no canonical copy of the whole document. */
static PyObject *canonical_hashes(PyObject *self, PyObject *args) {
    return hash_ranges(args, 1, "document");
}

/* canonical_slice(document, start, end) -> bytes: the canonical text of document[start:end]
 * (canonical_words), for one chunk's text. */
static PyObject *canonical_slice(PyObject *self, PyObject *args) {
    Py_buffer dv;
    Py_ssize_t lo, hi;
    if (!PyArg_ParseTuple(args, "y*nn", &dv, &lo, &hi)) return NULL;
    if (lo < 0 || hi < lo || hi > dv.len) {
        PyBuffer_Release(&dv);
        PyErr_SetString(PyExc_ValueError, "the range lies outside the document");
        return NULL;
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, hi - lo + 16); /* canonical_words stores 16 bytes at a time */
    if (out) {
        Py_ssize_t size = canonical_words((const u8 *)dv.buf + lo, (const u8 *)dv.buf + hi, (u8 *)PyBytes_AS_STRING(out));
        if (_PyBytes_Resize(&out, size) < 0) out = NULL;
    }
    PyBuffer_Release(&dv);
    return out;
}

/* utf8_offsets(data, offsets) -> int64 bytes: the byte offset in the UTF-8 `data` of
 * every code-point offset in `offsets` (int64, ascending, at most the code points in
 * data), found in one forward walk that counts the bytes that start a character. */
static PyObject *utf8_offsets(PyObject *self, PyObject *args) {
    PyObject *o_data, *o_off;
    Py_buffer dv, ov;
    if (!PyArg_ParseTuple(args, "OO", &o_data, &o_off)) return NULL;
    if (PyObject_GetBuffer(o_data, &dv, PyBUF_SIMPLE) < 0) return NULL;
    if (get_int64s(o_off, &ov, "offsets") < 0) { PyBuffer_Release(&dv); return NULL; }
    Py_ssize_t m = ov.len / 8, len = dv.len;
    const int64_t *want = ov.buf;
    const u8 *data = dv.buf;
    PyObject *out = new_buffer(8 * m);
    if (out) {
        int64_t *got = (int64_t *)PyBytes_AS_STRING(out);
        /* cp: how many characters start in data[0:p] (bytes that are not 10xxxxxx) */
        Py_ssize_t p = 0;
        int64_t cp = 0, last = 0;
        int bad = 0;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t k = 0; k < m && !bad; k++) {
            int64_t t = want[k];
            if (t < last) { bad = 1; break; }
            last = t;
            for (;;) {
#if defined(__SSE2__)
                if (len - p >= 16) { /* 16 bytes at once while they start no more than t - cp characters */
                    __m128i v = _mm_loadu_si128((const __m128i *)(data + p));
                    /* as signed bytes, 10xxxxxx are exactly those below (int8)0xC0 */
                    unsigned cont = (unsigned)_mm_movemask_epi8(_mm_cmplt_epi8(v, _mm_set1_epi8((char)0xC0)));
                    int starts = 16;
                    if (cont) { /* a 16-bit population count, inline (no popcnt instruction assumed) */
                        cont -= (cont >> 1) & 0x5555;
                        cont = (cont & 0x3333) + ((cont >> 2) & 0x3333);
                        cont = (cont + (cont >> 4)) & 0x0F0F;
                        starts -= (int)((cont + (cont >> 8)) & 0x1F);
                    }
                    if (cp + starts <= t) { p += 16; cp += starts; continue; }
                }
#endif
                if (cp >= t) break;
                if (p >= len) { bad = 1; break; }
                cp += (data[p] & 0xC0) != 0x80;
                p++;
            }
            while (p < len && (data[p] & 0xC0) == 0x80) p++; /* the rest of character t - 1 */
            got[k] = p;
        }
        Py_END_ALLOW_THREADS
        if (bad) {
            Py_CLEAR(out);
            PyErr_SetString(PyExc_ValueError, "offsets must ascend and lie within the text");
        }
    }
    PyBuffer_Release(&dv); PyBuffer_Release(&ov);
    return out;
}

static PyObject *py_xxh3_128(PyObject *self, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    u64 lo, hi;
    xxh3_128(view.buf, (size_t)view.len, &lo, &hi);
    PyBuffer_Release(&view);
    char hex[32];
    put_hex(hex, hi);
    put_hex(hex + 16, lo);
    return PyUnicode_FromStringAndSize(hex, 32);
}

static PyObject *py_xxh3_64(PyObject *self, PyObject *args) {
    Py_buffer view;
    unsigned long long seed = 0;
    if (!PyArg_ParseTuple(args, "y*|K", &view, &seed)) return NULL;
    u64 h = xxh3_64(view.buf, (size_t)view.len, (u64)seed);
    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLongLong(h);
}

static PyMethodDef METHODS[] = {
    {"scan", scan, METH_O, "scan(utf8 or str) -> (n, starts, ends, para, symbols, canonical, canonical_ends, sentence_ends)"},
    {"utf8_error", utf8_error, METH_O, "utf8_error(data) -> offset of the first byte that is not UTF-8, or -1"},
    {"fingerprints", fingerprints, METH_VARARGS, "fingerprints(symbols, window, reduce, shift, drop, clmul=None, masks=None)"},
    {"fingerprint_candidates", fingerprint_candidates, METH_VARARGS,
     "fingerprint_candidates(symbols, window, reduce, shift, drop, pmask, prem, bmask, brem, clmul=None) -> (primary, backup)"},
    {"candidates", candidates, METH_VARARGS, "candidates(fingerprints, pmask, prem, bmask, brem) -> (primary, backup)"},
    {"segment", segment, METH_VARARGS, "segment(cum, primary, backup, min_tokens, max_tokens)"},
    {"chars4_totals", chars4_totals, METH_VARARGS, "chars4_totals(starts, ends, want_counts) -> (int32 counts or None, int64 cum)"},
    {"lmx2_keys", lmx2_keys, METH_VARARGS,
     "lmx2_keys(symbols, cum, classes, key_tokens, prefer, base, base_inverse, dense_limit, keep_h=True, keys=True)"},
    {"lmx2_key_of", lmx2_key_of, METH_VARARGS, "lmx2_key_of(h, classes, prefer, j, at=None) -> uint64 keys"},
    {"local_maxima", local_maxima, METH_VARARGS, "local_maxima(values, pos, reach, candidates, dense_limit) -> flags"},
    {"local_maxima_at", local_maxima_at, METH_VARARGS, "local_maxima_at(values, pos, reach, offset) -> int64 indices"},
    {"lmx2_prefix", lmx2_prefix, METH_VARARGS, "lmx2_prefix(symbols, base_inverse, in_place) -> P of cuts 1..n or None"},
    {"lmx2_cuts", lmx2_cuts, METH_VARARGS,
     "lmx2_cuts(symbols, para, sentence_ends, prefer, cum, starts, ends, key_tokens, base, horizon, min_tokens, gate, "
     "fill_horizon, maxima) -> (maxima, positions, kinds)"},
    {"chunk_hashes", chunk_hashes, METH_VARARGS, "chunk_hashes(canonical, byte_starts, byte_ends, prefix) -> [hex str]"},
    {"scan_rabin", scan_rabin, METH_VARARGS,
     "scan_rabin(utf8, window, clmul, masks, chars4=False) -> scan_lean(utf8) + (primary, backup, cum or None), "
     "or the offset of a byte that is not UTF-8"},
    {"scan_checked", scan_checked, METH_VARARGS,
     "scan_checked(utf8, chars4=False) -> scan_lean(utf8) + (cum or None), or the offset of the first byte "
     "that is not UTF-8"},
    {"scan_lean", scan_lean, METH_O, "scan_lean(utf8) -> scan(utf8) without the canonical text (empty canonical, canonical_ends)"},
    {"canonical_hashes", canonical_hashes, METH_VARARGS,
     "canonical_hashes(document, byte_starts, byte_ends, prefix) -> [hex str] of each range's canonical text"},
    {"canonical_slice", canonical_slice, METH_VARARGS, "canonical_slice(document, start, end) -> canonical bytes"},
    {"utf8_offsets", utf8_offsets, METH_VARARGS, "utf8_offsets(data, code point offsets) -> int64 byte offsets"},
    {"xxh3_128_hexdigest", py_xxh3_128, METH_O, "xxh3_128_hexdigest(data) -> str (seed 0)"},
    {"xxh3_64", py_xxh3_64, METH_VARARGS, "xxh3_64(data, seed=0) -> int"},
    {"release_pool", release_pool, METH_NOARGS, "release_pool() -> bytes given back: the output pool's free blocks go back to the system"},
    {"pool_limit", pool_limit, METH_VARARGS, "pool_limit(bytes=-1) -> the bound before; bytes >= 0 sets it"},
    {"pool_stats", pool_stats, METH_NOARGS, "pool_stats() -> dict of the output pool's free blocks and counts"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef MODULE = {PyModuleDef_HEAD_INIT, "_kernel", "Steadlith's compiled text kernel", -1, METHODS};

PyMODINIT_FUNC PyInit__kernel(void) {
    init_tables();
    HAS_CLMUL = clmul_usable();
    if (PyType_Ready(&BufferType) < 0) return NULL;
    PyObject *m = PyModule_Create(&MODULE);
    if (m && PyModule_AddIntConstant(m, "HAS_CLMUL", HAS_CLMUL) < 0) Py_CLEAR(m);
    Py_INCREF(&BufferType);
    if (m && PyModule_AddObject(m, "Buffer", (PyObject *)&BufferType) < 0) { Py_DECREF(&BufferType); Py_CLEAR(m); }
    return m;
}
