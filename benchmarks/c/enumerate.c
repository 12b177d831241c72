/* Every deal of a small deck in one thread of C: the reference `benchmarks/enumerate.py` sets
 * `cardwar simulate --enumerate` beside, on the jobs Courbet's published C++ enumerator runs.
 *
 * The same job as `cardwar simulate --enumerate RxS --rules '{"gather": G, "war_down": 0}'`:
 * every distinct sequence of the deck's ranks, in lexicographic order (next permutation), split
 * in two halves (the first player n / 2 cards), a deal and its mirror once on an even deck (the
 * first half not after the second), every deal on an odd one; two players, no card face down
 * (a tie turns one more card each; a tied player with no card left is short and loses, both
 * short is a draw), the winner picking the table up as it lies (`natural`) or its own cards
 * first (`winner_first`). Each deal is played to its end or to a loop; loops are counted with
 * their lengths and named once (the smallest position of the loop over both seatings), the
 * longest game kept with its deal, battles counted in a histogram. It prints its figures, so
 * that the benchmark can check both did the same work.
 *
 * Written to be fair and reasonably fast, as the published enumerators are written: each hand a
 * ring of bytes, Brent's cycle detection comparing whole hands (sizes first), each loop named
 * by one walk round it. Built with the system's cc -O3; not part of the package.
 *
 *     cc -O3 -o enumerate enumerate.c && ./enumerate RANKS SUITS natural|winner_first
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RING 64
#define MASK (RING - 1)
#define MAXN 32
#define BINS 4096

static int n, half, natural;

typedef struct {
    uint8_t c[2][RING];
    unsigned h[2], s[2];
} Game;

/* The position as bytes: the first seat's count, then every card, seat 0's then seat 1's. */
static void position(const Game *g, int flip, uint8_t *out) {
    int first = flip ? 1 : 0;
    out[0] = (uint8_t)g->s[first];
    int at = 1;
    for (int k = 0; k < 2; k++) {
        int seat = k == 0 ? first : 1 - first;
        for (unsigned i = 0; i < g->s[seat]; i++) out[at++] = g->c[seat][(g->h[seat] + i) & MASK];
    }
}

static inline void push(Game *g, int seat, uint8_t card) {
    g->c[seat][(g->h[seat] + g->s[seat]) & MASK] = card;
    g->s[seat]++;
}

/* One battle; returns 0 while the game goes on, 1 when it ended (winner in *winner, -1 for a
 * draw). */
static inline int battle(Game *g, int *winner) {
    uint8_t a = g->c[0][g->h[0]], b = g->c[1][g->h[1]];
    g->h[0] = (g->h[0] + 1) & MASK;
    g->h[1] = (g->h[1] + 1) & MASK;
    g->s[0]--;
    g->s[1]--;
    if (a != b) {
        int w = a > b ? 0 : 1;
        push(g, w, w ? b : a);
        push(g, w, w ? a : b);
    } else {
        uint8_t ties[MAXN];
        int t = 0;
        while (a == b) {
            ties[t++] = a;
            if (g->s[0] == 0 || g->s[1] == 0) {
                *winner = g->s[0] ? 0 : g->s[1] ? 1 : -1;
                return 1;
            }
            a = g->c[0][g->h[0]];
            b = g->c[1][g->h[1]];
            g->h[0] = (g->h[0] + 1) & MASK;
            g->h[1] = (g->h[1] + 1) & MASK;
            g->s[0]--;
            g->s[1]--;
        }
        int w = a > b ? 0 : 1;
        uint8_t hi = w ? b : a, lo = w ? a : b;
        if (natural) { /* as it lies: the winner's card, the loser's, then the ties, last first */
            push(g, w, hi);
            push(g, w, lo);
            for (int i = t - 1; i >= 0; i--) {
                push(g, w, ties[i]);
                push(g, w, ties[i]);
            }
        } else { /* the winner's cards as laid, then the loser's */
            for (int i = 0; i < t; i++) push(g, w, ties[i]);
            push(g, w, hi);
            for (int i = 0; i < t; i++) push(g, w, ties[i]);
            push(g, w, lo);
        }
    }
    if (g->s[0] == 0 || g->s[1] == 0) {
        *winner = g->s[0] ? 0 : 1;
        return 1;
    }
    return 0;
}

static int same(const Game *g, const uint8_t *kept) {
    if (g->s[0] != kept[0]) return 0;
    const uint8_t *k = kept + 1;
    for (int seat = 0; seat < 2; seat++)
        for (unsigned i = 0; i < g->s[seat]; i++)
            if (g->c[seat][(g->h[seat] + i) & MASK] != *k++) return 0;
    return 1;
}

/* Distinct loops: an open-addressing table of names (positions), each with its length and
 * deals. */
typedef struct {
    uint8_t name[MAXN + 1];
    int length, used;
    uint64_t deals;
} Loop;
static Loop *loops;
static size_t loop_rows = 1 << 12, loop_count;

static uint64_t hash(const uint8_t *p) {
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i <= n; i++) h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

static size_t loop_row(const uint8_t *name, int length);

static void regrow(void) {
    Loop *old = loops;
    size_t rows = loop_rows;
    loop_rows *= 2;
    loops = calloc(loop_rows, sizeof(Loop));
    loop_count = 0;
    for (size_t i = 0; i < rows; i++)
        if (old[i].used) loops[loop_row(old[i].name, old[i].length)].deals = old[i].deals;
    free(old);
}

static size_t loop_row(const uint8_t *name, int length) {
    size_t at = hash(name) & (loop_rows - 1);
    while (loops[at].used) {
        if (memcmp(loops[at].name, name, (size_t)n + 1) == 0) return at;
        at = (at + 1) & (loop_rows - 1);
    }
    memcpy(loops[at].name, name, (size_t)n + 1);
    loops[at].length = length;
    loops[at].used = 1;
    loop_count++;
    return at;
}

static int next_permutation(uint8_t *a, int len) {
    int i = len - 2;
    while (i >= 0 && a[i] >= a[i + 1]) i--;
    if (i < 0) return 0;
    int j = len - 1;
    while (a[j] <= a[i]) j--;
    uint8_t t = a[i];
    a[i] = a[j];
    a[j] = t;
    for (int lo = i + 1, hi = len - 1; lo < hi; lo++, hi--) {
        t = a[lo];
        a[lo] = a[hi];
        a[hi] = t;
    }
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s RANKS SUITS natural|winner_first\n", argv[0]);
        return 2;
    }
    int ranks = atoi(argv[1]), suits = atoi(argv[2]);
    natural = strcmp(argv[3], "natural") == 0;
    n = ranks * suits;
    half = n / 2;
    if (n < 2 || n > MAXN) return 2;
    loops = calloc(loop_rows, sizeof(Loop));
    uint8_t deck[MAXN], kept[MAXN + 1], best[MAXN + 1], other[MAXN + 1];
    for (int i = 0; i < n; i++) deck[i] = (uint8_t)(1 + i / suits);
    int mirror = n % 2 == 0;
    uint64_t deals = 0, cycles = 0, ended = 0, battles_total = 0, hist[BINS] = {0};
    uint64_t index = 0, longest_index = 0;
    int longest = -1;
    struct timespec start, stop;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do {
        if (mirror && memcmp(deck, deck + half, (size_t)half) > 0) {
            index++;
            continue;
        }
        deals++;
        Game g;
        memcpy(g.c[0], deck, (size_t)half);
        memcpy(g.c[1], deck + half, (size_t)(n - half));
        g.h[0] = g.h[1] = 0;
        g.s[0] = (unsigned)half;
        g.s[1] = (unsigned)(n - half);
        /* Brent: keep the position at powers of two, compare every later one with it. */
        position(&g, 0, kept);
        int power = 1, length = 0, battles = 0, winner, over = 0;
        for (;;) {
            over = battle(&g, &winner);
            battles++;
            if (over) break;
            if (same(&g, kept)) {
                length++;
                break;
            }
            if (++length == power) {
                position(&g, 0, kept);
                power *= 2;
                length = 0;
            }
        }
        if (over) {
            ended++;
            battles_total += (uint64_t)battles;
            hist[battles < BINS ? battles : BINS - 1]++;
            if (battles > longest) {
                longest = battles;
                longest_index = index;
            }
        } else {
            cycles++;
            /* Walk the loop once: its name is its smallest position, both seatings. (A cache
             * of the positions of loops already named, as the published enumerators keep,
             * costs more than this walk on 11x1: its 823,488 loop positions do not fit one
             * that stays in the processor's cache, and a miss walked the loop twice.) */
            position(&g, 0, best);
            Game walk = g;
            for (int i = 0; i < length; i++) {
                position(&walk, 0, other);
                if (memcmp(other, best, (size_t)n + 1) < 0) memcpy(best, other, (size_t)n + 1);
                position(&walk, 1, other);
                if (memcmp(other, best, (size_t)n + 1) < 0) memcpy(best, other, (size_t)n + 1);
                battle(&walk, &winner);
            }
            if (2 * (loop_count + 1) > loop_rows) regrow();
            size_t row = loop_row(best, length);
            loops[row].deals++;
        }
        index++;
    } while (next_permutation(deck, n));
    clock_gettime(CLOCK_MONOTONIC, &stop);
    double seconds = (double)(stop.tv_sec - start.tv_sec) + 1e-9 * (double)(stop.tv_nsec - start.tv_nsec);
    int lengths[1024] = {0};
    for (size_t i = 0; i < loop_rows; i++)
        if (loops[i].used && loops[i].length < 1024) lengths[loops[i].length]++;
    printf("{\"deals\": %llu, \"cycles\": %llu, \"distinct_cycles\": %zu, \"loop_lengths\": {",
           (unsigned long long)deals, (unsigned long long)cycles, loop_count);
    int first = 1;
    for (int i = 0; i < 1024; i++)
        if (lengths[i]) {
            printf("%s\"%d\": %d", first ? "" : ", ", i, lengths[i]);
            first = 0;
        }
    printf("}, \"ended\": %llu, \"battles\": %llu, \"longest\": %d, \"longest_index\": %llu, "
           "\"seconds\": %.6f}\n",
           (unsigned long long)ended, (unsigned long long)battles_total, longest,
           (unsigned long long)longest_index, seconds);
    return 0;
}
