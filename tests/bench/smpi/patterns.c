/* The SMPI side of the cross-check: an MPI program, built with smpicc and run by smpirun on the platform file quorum
 * exports (scripts/smpi-crosscheck). For every PATTERN:BYTES argument (traffic_patterns.h) every rank starts at the
 * same simulated instant, posts its receives and sends, and waits for them; rank 0 prints
 * "PATTERN BYTES SECONDS" with the time of the last rank to finish.
 *
 *   smpirun -platform p.xml -hostfile hosts -np N ./patterns ring:65536 butterfly3:1048576 allpairs:65536
 *
 * The ranks meet in a SimGrid barrier before and after each pattern, not an MPI one: it sends no message, so all
 * ranks start at exactly the same instant, and no rank that has finished sends anything (the reduction of the
 * times) while other ranks' transfers still share links with it. SMPI runs all ranks in one process, so rank 0
 * can hand the barrier to the others by address. Buffers come from SMPI_SHARED_MALLOC: SMPI moves no real bytes
 * (the simulated sizes are unchanged). */
#include <mpi.h>
#include <simgrid/barrier.h>
#include <smpi/smpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "traffic_patterns.h"

/* One pattern, all ranks starting together; returns the slowest rank's time (on rank 0). */
static double run_pattern(const struct traffic_pattern* p, sg_bar_t barrier, char* buffer, int rank, int size,
                          int* peers, MPI_Request* requests) {
  double start, elapsed, slowest = 0;
  int n = 0, count, i;
  sg_barrier_wait(barrier);
  start = MPI_Wtime();
  count = traffic_peers(p, rank, size, 0, peers);
  for (i = 0; i < count; ++i)
    MPI_Irecv(buffer, (int)p->bytes, MPI_BYTE, peers[i], 0, MPI_COMM_WORLD, &requests[n++]);
  count = traffic_peers(p, rank, size, 1, peers);
  for (i = 0; i < count; ++i)
    MPI_Isend(buffer, (int)p->bytes, MPI_BYTE, peers[i], 0, MPI_COMM_WORLD, &requests[n++]);
  MPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
  elapsed = MPI_Wtime() - start;
  sg_barrier_wait(barrier);
  MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  return slowest;
}

int main(int argc, char** argv) {
  int rank, size, i;
  long long largest = 1;
  struct traffic_pattern* patterns;
  sg_bar_t barrier = NULL;
  char error[256], name[64];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2) {
    if (rank == 0) fprintf(stderr, "usage: patterns PATTERN:BYTES... (ring, butterflyD, allpairs)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  patterns = malloc(sizeof *patterns * (size_t)(argc - 1));
  for (i = 1; i < argc; ++i) {
    if (traffic_parse(argv[i], &patterns[i - 1], error, sizeof error) != 0) {
      if (rank == 0) fprintf(stderr, "patterns: %s\n", error);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (patterns[i - 1].bytes > 2147483647LL) {
      if (rank == 0) fprintf(stderr, "patterns: '%s': at most 2^31 - 1 bytes per message\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (patterns[i - 1].bytes > largest) largest = patterns[i - 1].bytes;
  }
  if (rank == 0) barrier = sg_barrier_init((unsigned)size);
  MPI_Bcast(&barrier, sizeof barrier, MPI_BYTE, 0, MPI_COMM_WORLD);
  {
    /* One buffer for every send and receive: shared memory, never copied. */
    char* buffer = SMPI_SHARED_MALLOC((size_t)largest);
    int* peers = malloc(sizeof *peers * (size_t)size);
    MPI_Request* requests = malloc(sizeof *requests * 2 * (size_t)size);
    for (i = 0; i < argc - 1; ++i) {
      double seconds = run_pattern(&patterns[i], barrier, buffer, rank, size, peers, requests);
      traffic_name(&patterns[i], name, sizeof name);
      if (rank == 0) printf("%s %lld %.17g\n", name, patterns[i].bytes, seconds);
    }
    fflush(stdout);
    free(requests);
    free(peers);
    SMPI_SHARED_FREE(buffer);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) sg_barrier_destroy(barrier);
  free(patterns);
  MPI_Finalize();
  return 0;
}
