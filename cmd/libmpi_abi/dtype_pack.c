/*
 * dtype_pack.c — MPI_Pack/Unpack (native layout) and the "external32"
 * representation of MPI_Pack_external/Unpack_external: big-endian, with the
 * standard's sizes (MPI_LONG and MPI_UNSIGNED_LONG 4 bytes, MPI_WCHAR 2),
 * as MPICH packs them.
 */
#include <string.h>

#include "argcheck.h"
#include "dtype.h"

/* ---- native ----------------------------------------------------------- */

static int hc_pack(const void *inbuf, int64_t incount, MPI_Datatype datatype, void *outbuf, int64_t outsize,
		   int64_t *position, MPI_Comm comm, const char *fn)
{
	int ci = hc_comm_index(comm);
	if (ci < 0) return hc_error(-1, MPI_ERR_COMM, fn);
	hc_dt *t = hc_dt_get(datatype);
	if (!t) return hc_error(ci, MPI_ERR_TYPE, fn);
	HC_CHECK_COUNT(ci, incount, fn);
	HC_CHECK_COUNT(ci, outsize, fn);
	HC_CHECK_BUF(ci, inbuf, incount, datatype, fn);
	if (*position < 0) return hc_arg_fail(ci, MPI_ERR_ARG, fn, "negative position");
	if ((uintptr_t)outbuf < 4096 && t->size * incount > 0)
		return hc_arg_fail(ci, MPI_ERR_BUFFER, fn, "outbuf is NULL or MPI_IN_PLACE");
	if (*position + t->size * incount > outsize) return hc_error(ci, MPI_ERR_TRUNCATE, fn);
	hc_dt_pack(t, incount, inbuf, (char *)outbuf + *position, t->size * incount);
	*position += t->size * incount;
	return MPI_SUCCESS;
}

static int hc_unpack(const void *inbuf, int64_t insize, int64_t *position, void *outbuf, int64_t outcount,
		     MPI_Datatype datatype, MPI_Comm comm, const char *fn)
{
	int ci = hc_comm_index(comm);
	if (ci < 0) return hc_error(-1, MPI_ERR_COMM, fn);
	hc_dt *t = hc_dt_get(datatype);
	if (!t) return hc_error(ci, MPI_ERR_TYPE, fn);
	HC_CHECK_COUNT(ci, outcount, fn);
	HC_CHECK_COUNT(ci, insize, fn);
	HC_CHECK_BUF(ci, outbuf, outcount, datatype, fn);
	if (*position < 0) return hc_arg_fail(ci, MPI_ERR_ARG, fn, "negative position");
	if ((uintptr_t)inbuf < 4096 && t->size * outcount > 0)
		return hc_arg_fail(ci, MPI_ERR_BUFFER, fn, "inbuf is NULL or MPI_IN_PLACE");
	if (*position + t->size * outcount > insize) return hc_error(ci, MPI_ERR_TRUNCATE, fn);
	hc_dt_unpack(t, outcount, (const char *)inbuf + *position, t->size * outcount, outbuf);
	*position += t->size * outcount;
	return MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position,
	      MPI_Comm comm)
{
	HC_CHECK_PTR(-1, position, "MPI_Pack");
	int64_t pos = *position;
	int rc = hc_pack(inbuf, incount, datatype, outbuf, outsize, &pos, comm, "MPI_Pack");
	if (rc == MPI_SUCCESS) *position = (int)pos;
	return rc;
}

int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
		MPI_Count *position, MPI_Comm comm)
{
	HC_CHECK_PTR(-1, position, "MPI_Pack_c");
	int64_t pos = *position;
	int rc = hc_pack(inbuf, incount, datatype, outbuf, outsize, &pos, comm, "MPI_Pack_c");
	if (rc == MPI_SUCCESS) *position = pos;
	return rc;
}

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype datatype,
		MPI_Comm comm)
{
	HC_CHECK_PTR(-1, position, "MPI_Unpack");
	int64_t pos = *position;
	int rc = hc_unpack(inbuf, insize, &pos, outbuf, outcount, datatype, comm, "MPI_Unpack");
	if (rc == MPI_SUCCESS) *position = (int)pos;
	return rc;
}

int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount,
		  MPI_Datatype datatype, MPI_Comm comm)
{
	HC_CHECK_PTR(-1, position, "MPI_Unpack_c");
	int64_t pos = *position;
	int rc = hc_unpack(inbuf, insize, &pos, outbuf, outcount, datatype, comm, "MPI_Unpack_c");
	if (rc == MPI_SUCCESS) *position = pos;
	return rc;
}

static int hc_pack_size(int64_t incount, MPI_Datatype datatype, MPI_Comm comm, int64_t *size, const char *fn)
{
	int ci = hc_comm_index(comm);
	if (ci < 0) return hc_error(-1, MPI_ERR_COMM, fn);
	hc_dt *t = hc_dt_get(datatype);
	if (!t) return hc_error(ci, MPI_ERR_TYPE, fn);
	HC_CHECK_COUNT(ci, incount, fn);
	HC_CHECK_PTR(ci, size, fn);
	*size = t->size * incount;
	return MPI_SUCCESS;
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
	int64_t s = 0;
	HC_CHECK_PTR(-1, size, "MPI_Pack_size");
	int rc = hc_pack_size(incount, datatype, comm, &s, "MPI_Pack_size");
	if (rc == MPI_SUCCESS) *size = s > 0x7fffffff ? MPI_UNDEFINED : (int)s;
	return rc;
}

int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
	int64_t s = 0;
	HC_CHECK_PTR(-1, size, "MPI_Pack_size_c");
	int rc = hc_pack_size(incount, datatype, comm, &s, "MPI_Pack_size_c");
	if (rc == MPI_SUCCESS) *size = s;
	return rc;
}

/* ---- external32 ------------------------------------------------------- */

/* hc_ext_layout gives a basic type's external32 size and the width of the
 * units whose bytes are reversed (half the size for complex types). */
static void hc_ext_layout(intptr_t h, int64_t native, int64_t *ext, int64_t *unit)
{
	*ext = native;
	*unit = native;
	switch (h) {
	case (intptr_t)MPI_LONG: case (intptr_t)MPI_UNSIGNED_LONG:
		*ext = *unit = 4;
		return;
	case (intptr_t)MPI_WCHAR:
		*ext = *unit = 2;
		return;
	case (intptr_t)MPI_C_FLOAT_COMPLEX: case (intptr_t)MPI_CXX_FLOAT_COMPLEX: case (intptr_t)MPI_COMPLEX:
	case (intptr_t)MPI_C_DOUBLE_COMPLEX: case (intptr_t)MPI_CXX_DOUBLE_COMPLEX: case (intptr_t)MPI_DOUBLE_COMPLEX:
	case (intptr_t)MPI_C_LONG_DOUBLE_COMPLEX: case (intptr_t)MPI_CXX_LONG_DOUBLE_COMPLEX:
	case (intptr_t)MPI_COMPLEX8: case (intptr_t)MPI_COMPLEX16: case (intptr_t)MPI_COMPLEX32:
	case (intptr_t)MPI_COMPLEX4:
		*unit = native / 2;
		return;
	}
}

static int hc_ext_signed(intptr_t h) { return h == (intptr_t)MPI_LONG; }

typedef struct {
	char *user;
	unsigned char *ext;
	int unpack;
} hc_extctx;

static int hc_ext_run(void *c, int64_t off, int64_t bytes, const hc_dt *leaf, int64_t count)
{
	(void)bytes;
	hc_extctx *x = c;
	intptr_t h = hc_dt_predef_handle(leaf);
	int64_t ext, unit, n = leaf->size;
	hc_ext_layout(h, n, &ext, &unit);
	for (int64_t k = 0; k < count; k++) {
		unsigned char *u = (unsigned char *)x->user + off + k * n;
		if (ext < n) {
			/* Narrowed integers: the low ext bytes, widened back on
			 * the way in (little-endian host). */
			if (x->unpack) {
				int neg = hc_ext_signed(h) && (x->ext[0] & 0x80);
				memset(u, neg ? 0xff : 0, n);
				for (int64_t b = 0; b < ext; b++) u[b] = x->ext[ext - 1 - b];
			} else {
				for (int64_t b = 0; b < ext; b++) x->ext[b] = u[ext - 1 - b];
			}
		} else {
			for (int64_t p = 0; p < n; p += unit)
				for (int64_t b = 0; b < unit; b++) {
					if (x->unpack) u[p + b] = x->ext[p + unit - 1 - b];
					else x->ext[p + unit - 1 - b] = u[p + b];
				}
		}
		x->ext += ext;
	}
	return 0;
}

typedef struct {
	int64_t bytes;
} hc_extsize;

static int hc_ext_size_run(void *c, int64_t off, int64_t bytes, const hc_dt *leaf, int64_t count)
{
	(void)off;
	(void)bytes;
	int64_t ext, unit;
	hc_ext_layout(hc_dt_predef_handle(leaf), leaf->size, &ext, &unit);
	((hc_extsize *)c)->bytes += ext * count;
	return 0;
}

static int64_t hc_ext_size(const hc_dt *t, int64_t count)
{
	hc_extsize s = {0};
	hc_dt_walk(t, 0, 1, 0, hc_ext_size_run, &s);
	return s.bytes * count;
}

static int hc_ext_ok(const char *datarep, const char *fn)
{
	HC_CHECK_PTR(-1, datarep, fn);
	if (strcmp(datarep, "external32") != 0) {
		HC_MSG("only the \"external32\" data representation is supported");
		return hc_error(-1, MPI_ERR_UNSUPPORTED_DATAREP, fn);
	}
	return MPI_SUCCESS;
}

static int hc_pack_external(const char *datarep, const void *inbuf, int64_t incount, MPI_Datatype datatype,
			    void *outbuf, int64_t outsize, int64_t *position, int unpack, const char *fn)
{
	int rc = hc_ext_ok(datarep, fn);
	if (rc) return rc;
	hc_dt *t = hc_dt_get(datatype);
	if (!t) return hc_error(-1, MPI_ERR_TYPE, fn);
	HC_CHECK_COUNT(-1, incount, fn);
	HC_CHECK_COUNT(-1, outsize, fn);
	HC_CHECK_PTR(-1, position, fn);
	if (*position < 0) return hc_arg_fail(-1, MPI_ERR_ARG, fn, "negative position");
	int64_t n = hc_ext_size(t, incount);
	/* The user's side may start anywhere (MPI_BOTTOM); the external
	 * buffer may not be in page zero. */
	HC_CHECK_BUF(-1, unpack ? outbuf : inbuf, incount, datatype, fn);
	if ((uintptr_t)(unpack ? inbuf : outbuf) < 4096 && n > 0)
		return hc_arg_fail(-1, MPI_ERR_BUFFER, fn, "external buffer is NULL or MPI_IN_PLACE");
	if (*position + n > outsize) return hc_error(-1, MPI_ERR_TRUNCATE, fn);
	/* Pack: inbuf is the user's data, outbuf the external buffer; unpack
	 * the other way round. */
	hc_extctx x = {unpack ? outbuf : (char *)inbuf, (unsigned char *)(unpack ? (char *)inbuf : (char *)outbuf) + *position,
		       unpack};
	hc_dt_walk(t, 0, incount, 0, hc_ext_run, &x);
	*position += n;
	return MPI_SUCCESS;
}

int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
		       MPI_Aint outsize, MPI_Aint *position)
{
	int64_t pos = (uintptr_t)position >= 4096 ? *position : 0;
	int rc = hc_pack_external(datarep, inbuf, incount, datatype, outbuf, outsize, (uintptr_t)position >= 4096 ? &pos : NULL, 0,
				  "MPI_Pack_external");
	if (rc == MPI_SUCCESS) *position = pos;
	return rc;
}

int PMPI_Pack_external_c(const char *datarep, const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
			 void *outbuf, MPI_Count outsize, MPI_Count *position)
{
	int64_t pos = (uintptr_t)position >= 4096 ? *position : 0;
	int rc = hc_pack_external(datarep, inbuf, incount, datatype, outbuf, outsize, (uintptr_t)position >= 4096 ? &pos : NULL, 0,
				  "MPI_Pack_external_c");
	if (rc == MPI_SUCCESS) *position = pos;
	return rc;
}

int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position, void *outbuf,
			 int outcount, MPI_Datatype datatype)
{
	int64_t pos = (uintptr_t)position >= 4096 ? *position : 0;
	int rc = hc_pack_external(datarep, inbuf, outcount, datatype, outbuf, insize, (uintptr_t)position >= 4096 ? &pos : NULL, 1,
				  "MPI_Unpack_external");
	if (rc == MPI_SUCCESS) *position = pos;
	return rc;
}

int PMPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize, MPI_Count *position,
			   void *outbuf, MPI_Count outcount, MPI_Datatype datatype)
{
	int64_t pos = (uintptr_t)position >= 4096 ? *position : 0;
	int rc = hc_pack_external(datarep, inbuf, outcount, datatype, outbuf, insize, (uintptr_t)position >= 4096 ? &pos : NULL, 1,
				  "MPI_Unpack_external_c");
	if (rc == MPI_SUCCESS) *position = pos;
	return rc;
}

static int hc_pack_external_size(const char *datarep, int64_t incount, MPI_Datatype datatype, int64_t *size,
				 const char *fn)
{
	int rc = hc_ext_ok(datarep, fn);
	if (rc) return rc;
	hc_dt *t = hc_dt_get(datatype);
	if (!t) return hc_error(-1, MPI_ERR_TYPE, fn);
	HC_CHECK_COUNT(-1, incount, fn);
	HC_CHECK_PTR(-1, size, fn);
	*size = hc_ext_size(t, incount);
	return MPI_SUCCESS;
}

int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size)
{
	int64_t s = 0;
	int rc = hc_pack_external_size(datarep, incount, datatype, (uintptr_t)size >= 4096 ? &s : NULL, "MPI_Pack_external_size");
	if (rc == MPI_SUCCESS) *size = s;
	return rc;
}

int PMPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype, MPI_Count *size)
{
	int64_t s = 0;
	int rc = hc_pack_external_size(datarep, incount, datatype, (uintptr_t)size >= 4096 ? &s : NULL, "MPI_Pack_external_size_c");
	if (rc == MPI_SUCCESS) *size = s;
	return rc;
}

#define HC_ALIASES_dtype_pack
#include "aliases_gen.h"
