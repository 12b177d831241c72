/* The classic table in one thread of C: the reference `benchmarks/enumerate.py` sets the
 * simulator beside, per core.
 *
 * The same job as `cardwar simulate --rounds N --seed S --workers 1` on the classic rules (two
 * players, one card down, a player short of a war loses, a draw at 500 battles, the winner's
 * cards first): the same generator (splitmix64), the same seeding of each game and the same
 * shuffle and deal as the kernels (src/cardwar/sim/kernels/rng.py and random_rounds.py), so it plays
 * exactly the same rounds, and the same statistics (counters and histograms of battles and wars
 * a round). It prints them, so that the benchmark can check both did the same work.
 *
 * Written to be fair and reasonably fast: each pile a ring of 64 bytes, its ends in registers,
 * a battle with no tie in a few instructions. Built with the system's cc -O2; not part of the
 * package.
 *
 *     cc -O2 -o classic classic.c && ./classic GAMES SEED
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CARDS 52
#define RING 64
#define MASK (RING - 1)
#define LIMIT 500
#define NEED 2 /* one card down, one up */
#define BATTLE_BINS (1 << 16)
#define WAR_BINS (1 << 12)

enum { ALL_CARDS, OPPONENT_SHORT, BOTH_SHORT, BATTLE_LIMIT, REASONS = 8 };

static inline uint64_t next_random(uint64_t *state) {
    *state += 0x9E3779B97F4A7C15ULL;
    uint64_t z = *state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline unsigned below(uint64_t *state, unsigned n) {
    return (unsigned)(((next_random(state) >> 32) * (uint64_t)n) >> 32);
}

static uint64_t games_won[2], reasons[REASONS], total_battles, total_wars, max_battles, max_wars;
static uint64_t battle_hist[BATTLE_BINS], war_hist[WAR_BINS];

static void play_game(uint64_t seed, uint64_t game) {
    uint64_t rng = seed * 0xD1B54A32D192ED03ULL + game;
    next_random(&rng);
    next_random(&rng);
    uint8_t deck[CARDS];
    for (int i = 0; i < CARDS; i++) deck[i] = (uint8_t)i;
    for (int i = CARDS - 1; i > 0; i--) {
        unsigned j = below(&rng, (unsigned)i + 1);
        uint8_t t = deck[i];
        deck[i] = deck[j];
        deck[j] = t;
    }
    uint8_t ring[2][RING];
    for (int i = 0; i < CARDS / 2; i++) {
        ring[0][i] = deck[2 * i];
        ring[1][i] = deck[2 * i + 1];
    }
    unsigned h0 = 0, h1 = 0, s0 = CARDS / 2, s1 = CARDS / 2;
    uint64_t battles = 0, wars = 0;
    int winner = -1, reason;
    for (;;) {
        uint8_t a = ring[0][h0], b = ring[1][h1];
        unsigned ra = a >> 2, rb = b >> 2;
        battles++;
        if (ra != rb) {
            h0 = (h0 + 1) & MASK;
            h1 = (h1 + 1) & MASK;
            if (ra > rb) {
                ring[0][(h0 + s0 - 1) & MASK] = a;
                ring[0][(h0 + s0) & MASK] = b;
                s0 += 1;
                s1 -= 1;
            } else {
                ring[1][(h1 + s1 - 1) & MASK] = b;
                ring[1][(h1 + s1) & MASK] = a;
                s1 += 1;
                s0 -= 1;
            }
        } else {
            unsigned laid = 1, fought = 0;
            int short0 = 0, short1 = 0;
            for (;;) {
                short0 = s0 - laid < NEED;
                short1 = s1 - laid < NEED;
                if (short0 || short1) break;
                laid += NEED;
                fought++;
                ra = ring[0][(h0 + laid - 1) & MASK] >> 2;
                rb = ring[1][(h1 + laid - 1) & MASK] >> 2;
                if (ra != rb) break;
            }
            wars += fought;
            if (short0 && short1) {
                reason = BOTH_SHORT;
                break;
            }
            if (short0 || short1) {
                winner = short0 ? 1 : 0;
                reason = OPPONENT_SHORT;
                break;
            }
            /* The winner's cards as laid (its pile's top `laid`), then the other's. */
            if (ra > rb) {
                for (unsigned i = 0; i < laid; i++) ring[0][(h0 + s0 + i) & MASK] = ring[0][(h0 + i) & MASK];
                for (unsigned i = 0; i < laid; i++) ring[0][(h0 + s0 + laid + i) & MASK] = ring[1][(h1 + i) & MASK];
                s0 += laid;
                s1 -= laid;
            } else {
                for (unsigned i = 0; i < laid; i++) ring[1][(h1 + s1 + i) & MASK] = ring[1][(h1 + i) & MASK];
                for (unsigned i = 0; i < laid; i++) ring[1][(h1 + s1 + laid + i) & MASK] = ring[0][(h0 + i) & MASK];
                s1 += laid;
                s0 -= laid;
            }
            h0 = (h0 + laid) & MASK;
            h1 = (h1 + laid) & MASK;
        }
        if (s0 == 0 || s1 == 0) {
            winner = s0 ? 0 : 1;
            reason = ALL_CARDS;
            break;
        }
        if (battles == LIMIT) {
            reason = BATTLE_LIMIT;
            break;
        }
    }
    if (winner >= 0) games_won[winner]++;
    reasons[reason]++;
    total_battles += battles;
    total_wars += wars;
    if (battles > max_battles) max_battles = battles;
    if (wars > max_wars) max_wars = wars;
    battle_hist[battles < BATTLE_BINS ? battles : BATTLE_BINS - 1]++;
    war_hist[wars < WAR_BINS ? wars : WAR_BINS - 1]++;
}

static uint64_t percentile(const uint64_t *hist, int bins, uint64_t games, double share) {
    uint64_t seen = 0;
    for (int i = 0; i < bins; i++) {
        seen += hist[i];
        if ((double)seen >= share * (double)games) return (uint64_t)i;
    }
    return (uint64_t)bins - 1;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s GAMES SEED\n", argv[0]);
        return 2;
    }
    uint64_t games = strtoull(argv[1], 0, 10), seed = strtoull(argv[2], 0, 10);
    struct timespec start, stop;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (uint64_t game = 0; game < games; game++) play_game(seed, game);
    clock_gettime(CLOCK_MONOTONIC, &stop);
    double seconds = (double)(stop.tv_sec - start.tv_sec) + 1e-9 * (double)(stop.tv_nsec - start.tv_nsec);
    printf("{\"games\": %llu, \"wins\": [%llu, %llu], \"reasons\": [%llu, %llu, %llu, %llu], "
           "\"battles\": %llu, \"wars\": %llu, \"max_battles\": %llu, \"median\": %llu, "
           "\"p90\": %llu, \"seconds\": %.6f}\n",
           (unsigned long long)games, (unsigned long long)games_won[0],
           (unsigned long long)games_won[1], (unsigned long long)reasons[ALL_CARDS],
           (unsigned long long)reasons[OPPONENT_SHORT], (unsigned long long)reasons[BOTH_SHORT],
           (unsigned long long)reasons[BATTLE_LIMIT], (unsigned long long)total_battles,
           (unsigned long long)total_wars, (unsigned long long)max_battles,
           (unsigned long long)percentile(battle_hist, BATTLE_BINS, games, 0.5),
           (unsigned long long)percentile(battle_hist, BATTLE_BINS, games, 0.9), seconds);
    return 0;
}
