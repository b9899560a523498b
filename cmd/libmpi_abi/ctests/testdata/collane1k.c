/* collane1k.c — collectives of 233 B to 8 KiB per block, which travel the
 * collective rings as spans of slots (shm/coll.go), run by the C
 * collective lane from the Go engine's plans (cmd/libmpi_abi/collane.c):
 * each repeated with the same arguments and new values, every result
 * checked. With COLLANE1K_SIZE=N only blocks of N bytes are used. */
#include <unistd.h>
#include "check.h"

enum { REPS = 60 };

static int me, n;

static int val(int r, int m, int i, int e) { return (r * 7919 + m * 31 + i * 131 + e * 17) % 100003 - 50000; }

static int sum(int lo, int hi, int m, int i, int e)
{
	int s = 0;
	for (int r = lo; r < hi; r++) s += val(r, m, i, e);
	return s;
}

static unsigned char byte_of(int seed, int e) { return (unsigned char)(seed * 13 + e * 7 + (e >> 8)); }

static void fill(unsigned char *b, int len, int seed)
{
	for (int e = 0; e < len; e++) b[e] = byte_of(seed, e);
}

static void expect(const unsigned char *b, int len, int seed, const char *what, int m)
{
	for (int e = 0; e < len; e++)
		if (b[e] != byte_of(seed, e)) {
			fprintf(stderr, "rank %d: %s of %d B: byte %d is %d, want %d\n", me, what, m, e, b[e], byte_of(seed, e));
			exit(1);
		}
}

static void sizes(int m)
{
	int k = (m + 3) / 4, root = n - 1;
	unsigned char *buf = malloc(m), *send = malloc(m), *back = malloc(m);
	unsigned char *all = malloc((size_t)n * m), *got = malloc((size_t)n * m);
	int *in = malloc(sizeof(int) * k * n), *out = malloc(sizeof(int) * k);
	CHECK(buf && send && back && all && got && in && out);
	for (int i = 0; i < REPS; i++) {
		if (me == root) fill(buf, m, m + i);
		else memset(buf, 0, m);
		CHECK_RC(MPI_Bcast(buf, m, MPI_BYTE, root, MPI_COMM_WORLD));
		expect(buf, m, m + i, "Bcast", m);
	}
	for (int i = 0; i < REPS; i++) {
		for (int e = 0; e < k; e++) in[e] = val(me, m, i, e);
		CHECK_RC(MPI_Allreduce(in, out, k, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
		for (int e = 0; e < k; e++) CHECK(out[e] == sum(0, n, m, i, e));
	}
	for (int i = 0; i < REPS; i++) {
		for (int e = 0; e < k; e++) in[e] = val(me, m, i, e), out[e] = -1;
		CHECK_RC(MPI_Reduce(in, out, k, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
		if (me == root)
			for (int e = 0; e < k; e++) CHECK(out[e] == sum(0, n, m, i, e));
	}
	for (int i = 0; i < REPS; i++) {
		for (int e = 0; e < k; e++) in[e] = val(me, m, i, e);
		CHECK_RC(MPI_Scan(in, out, k, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
		for (int e = 0; e < k; e++) CHECK(out[e] == sum(0, me + 1, m, i, e));
	}
	for (int i = 0; i < REPS; i++) {
		for (int e = 0; e < k; e++) in[e] = val(me, m, i, e);
		CHECK_RC(MPI_Exscan(in, out, k, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
		if (me > 0)
			for (int e = 0; e < k; e++) CHECK(out[e] == sum(0, me, m, i, e));
	}
	for (int i = 0; i < REPS; i++) {
		for (int e = 0; e < k * n; e++) in[e] = val(me, m, i, e);
		CHECK_RC(MPI_Reduce_scatter_block(in, out, k, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
		for (int e = 0; e < k; e++) CHECK(out[e] == sum(0, n, m, i, me * k + e));
	}
	for (int i = 0; i < REPS; i++) {
		fill(send, m, me * 1000 + m + i);
		memset(all, 0, (size_t)n * m);
		CHECK_RC(MPI_Gather(send, m, MPI_BYTE, all, m, MPI_BYTE, root, MPI_COMM_WORLD));
		if (me == root)
			for (int r = 0; r < n; r++) expect(all + (size_t)r * m, m, r * 1000 + m + i, "Gather", m);
	}
	for (int i = 0; i < REPS; i++) {
		if (me == root)
			for (int r = 0; r < n; r++) fill(all + (size_t)r * m, m, r * 7 + m + i);
		CHECK_RC(MPI_Scatter(all, m, MPI_BYTE, back, m, MPI_BYTE, root, MPI_COMM_WORLD));
		expect(back, m, me * 7 + m + i, "Scatter", m);
	}
	for (int i = 0; i < REPS; i++) {
		fill(send, m, me * 1000 + m + i);
		CHECK_RC(MPI_Allgather(send, m, MPI_BYTE, got, m, MPI_BYTE, MPI_COMM_WORLD));
		for (int r = 0; r < n; r++) expect(got + (size_t)r * m, m, r * 1000 + m + i, "Allgather", m);
	}
	for (int i = 0; i < REPS; i++) {
		for (int r = 0; r < n; r++) fill(all + (size_t)r * m, m, me * 100 + r + m + i);
		CHECK_RC(MPI_Alltoall(all, m, MPI_BYTE, got, m, MPI_BYTE, MPI_COMM_WORLD));
		for (int r = 0; r < n; r++) expect(got + (size_t)r * m, m, r * 100 + me + m + i, "Alltoall", m);
	}
	for (int i = 0; i < REPS; i++) { /* a nonblocking form, waited on at once */
		MPI_Request q;
		for (int e = 0; e < k; e++) in[e] = val(me, m, i, e);
		CHECK_RC(MPI_Iallreduce(in, out, k, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q));
		CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
		for (int e = 0; e < k; e++) CHECK(out[e] == sum(0, n, m, i, e));
	}
	free(buf), free(send), free(back), free(all), free(got), free(in), free(out);
}

int main(int argc, char **argv)
{
	CHECK_RC(MPI_Init(&argc, &argv));
	CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &me));
	CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &n));
	const char *only = getenv("COLLANE1K_SIZE");
	if (only) {
		sizes(atoi(only));
	} else {
		int ms[] = {233, 1024, 4096, 8192};
		for (unsigned j = 0; j < sizeof ms / sizeof ms[0]; j++) sizes(ms[j]);
	}
	report_ok();
	CHECK_RC(MPI_Finalize());
	return 0;
}
