/* The traffic patterns of the SMPI cross-check, in plain C so that both sides include this one definition: the MPI
 * program run by smpirun (patterns.c) and quorum's side (QuorumPatterns.cpp, through SimComm). Every rank posts all
 * its receives and sends at once and waits for all of them; a pattern's time is that of the last rank to finish.
 *
 *   ring:BYTES        rank r sends to r+1 and receives from r-1 (mod P)
 *   butterflyD:BYTES  rank r exchanges with r XOR 2^D (a rank whose partner is not below P sits it out)
 *   allpairs:BYTES    every rank sends to and receives from every other rank
 */
#ifndef QUORUM_TRAFFIC_PATTERNS_H
#define QUORUM_TRAFFIC_PATTERNS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum traffic_kind { TRAFFIC_RING, TRAFFIC_BUTTERFLY, TRAFFIC_ALL_PAIRS };

struct traffic_pattern {
  enum traffic_kind kind;
  int dimension;   /* butterfly: the partner is rank XOR 2^dimension */
  long long bytes; /* of every message */
};

/* Parses "ring:BYTES", "butterflyD:BYTES" or "allpairs:BYTES"; returns 0, or -1 with a message in error. */
static inline int traffic_parse(const char* text, struct traffic_pattern* out, char* error, size_t error_size) {
  const char* colon = strchr(text, ':');
  char* end = NULL;
  if (colon == NULL) {
    snprintf(error, error_size, "'%s': expected PATTERN:BYTES (ring, butterflyD or allpairs)", text);
    return -1;
  }
  out->bytes = strtoll(colon + 1, &end, 10);
  if (end == colon + 1 || *end != '\0' || out->bytes < 1) {
    snprintf(error, error_size, "'%s': BYTES must be a positive integer", text);
    return -1;
  }
  out->dimension = 0;
  if (strncmp(text, "ring:", 5) == 0) {
    out->kind = TRAFFIC_RING;
  } else if (strncmp(text, "allpairs:", 9) == 0) {
    out->kind = TRAFFIC_ALL_PAIRS;
  } else if (strncmp(text, "butterfly", 9) == 0) {
    long d = strtol(text + 9, &end, 10);
    if (end == text + 9 || end != colon || d < 0 || d > 30) {
      snprintf(error, error_size, "'%s': butterflyD needs a dimension D in 0..30", text);
      return -1;
    }
    out->kind = TRAFFIC_BUTTERFLY;
    out->dimension = (int)d;
  } else {
    snprintf(error, error_size, "'%s': unknown pattern (allowed: ring, butterflyD, allpairs)", text);
    return -1;
  }
  return 0;
}

/* The pattern's name as traffic_parse reads it ("butterfly3"). */
static inline void traffic_name(const struct traffic_pattern* p, char* name, size_t size) {
  if (p->kind == TRAFFIC_RING) snprintf(name, size, "ring");
  else if (p->kind == TRAFFIC_ALL_PAIRS) snprintf(name, size, "allpairs");
  else snprintf(name, size, "butterfly%d", p->dimension);
}

/* Fills peers (room for size - 1 ranks) with the ranks that rank sends to (sending != 0) or receives from; returns
 * how many. */
static inline int traffic_peers(const struct traffic_pattern* p, int rank, int size, int sending, int* peers) {
  int n = 0;
  if (size < 2) return 0;
  if (p->kind == TRAFFIC_RING) {
    peers[n++] = sending ? (rank + 1) % size : (rank + size - 1) % size;
  } else if (p->kind == TRAFFIC_BUTTERFLY) {
    int partner = rank ^ (1 << p->dimension);
    if (partner < size) peers[n++] = partner;
  } else {
    for (int other = 0; other < size; ++other)
      if (other != rank) peers[n++] = other;
  }
  return n;
}

#endif
