/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for src/core/work/cipher.c, the cipher backends of `engpass cpu`
 * and `engpass download`: every cipher/library pair either runs or says why not (and the
 * reason names the missing library in a build without it); sealed packets
 * open again to the same bytes; a flipped bit fails an AEAD's tag; the two
 * libraries' ChaCha20-Poly1305 and AES-256-GCM open each other's packets,
 * which shows both compute the real construction from the same key and
 * nonce (mbedTLS's four against OpenSSL's too, where a build has both); the stream ciphers that claim one continuous keystream give the
 * same bytes in two chunks as in one; RC4 notices packets out of order.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/work/cipher.h"
#include "config.h"

static const size_t sizes[] = { 1, 15, 64, 1400, 16384 };

/* Opens ID/LIB or returns NULL when it is not available here (checking the reason). */
static struct cipher *open_or_skip(enum cipher_id id, enum cipher_lib lib, size_t max)
{
	struct cipher *c = NULL;
	char why[256];
	int r = cipher_new(&c, id, lib, max, why, sizeof(why));

	if (r == -ENOTSUP) {
		assert_null(c);
		assert_true(strlen(why) > 0);
		if (lib == CIPHER_LIB_SODIUM && !HAVE_LIBSODIUM && cipher_in_lib(id, lib))
			assert_string_equal(why, "built without libsodium");
		if (lib == CIPHER_LIB_OPENSSL && !HAVE_OPENSSL && cipher_in_lib(id, lib))
			assert_string_equal(why, "built without openssl");
		if (lib == CIPHER_LIB_MBEDTLS && !HAVE_MBEDTLS && cipher_in_lib(id, lib))
			assert_string_equal(why, "built without mbedtls");
		return NULL;
	}
	assert_int_equal(r, 0);
	assert_non_null(c);
	return c;
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 31 + seed);
}

static void test_names(void **state)
{
	(void)state;
	for (int i = 0; i < CIPHER_NCIPHERS; i++)
		assert_int_equal(cipher_lookup(cipher_name(i)), i);
	assert_int_equal(cipher_lookup("aes"), -1);
	assert_int_equal(cipher_lookup("all"), -1);
	assert_int_equal(cipher_lookup(""), -1);
	assert_true(cipher_in_lib(CIPHER_SALSA2012, CIPHER_LIB_SODIUM));
	assert_false(cipher_in_lib(CIPHER_SALSA2012, CIPHER_LIB_OPENSSL));
	assert_false(cipher_in_lib(CIPHER_AES128CTR, CIPHER_LIB_SODIUM));
	assert_true(cipher_in_lib(CIPHER_RC4, CIPHER_LIB_OPENSSL));
	assert_true(cipher_in_lib(CIPHER_NONE, CIPHER_LIB_BUILTIN));
}

static void test_missing_pairs_say_why(void **state)
{
	struct cipher *c = NULL;
	char why[256];

	(void)state;
	assert_int_equal(cipher_new(&c, CIPHER_AES128CTR, CIPHER_LIB_SODIUM, 64, why, sizeof(why)), -ENOTSUP);
	assert_null(c);
	assert_string_equal(why, "libsodium has no aes-128-ctr");
	assert_int_equal(cipher_new(&c, CIPHER_SALSA20, CIPHER_LIB_OPENSSL, 64, why, sizeof(why)), -ENOTSUP);
	assert_string_equal(why, "OpenSSL has no salsa20");
	assert_int_equal(cipher_new(&c, CIPHER_NONE, CIPHER_LIB_BUILTIN, 0, why, sizeof(why)), -EINVAL);
}

/* Every available pair: seal then unseal gives the plaintext back, for several sizes. */
static void test_roundtrip_all(void **state)
{
	int ran = 0;

	(void)state;
	for (int id = 0; id < CIPHER_NCIPHERS; id++) {
		for (int lib = 0; lib < CIPHER_NLIBS; lib++) {
			if (!cipher_in_lib(id, lib))
				continue;
			for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
				size_t n = sizes[k], olen, plen;
				struct cipher *tx = open_or_skip(id, lib, n), *rx;
				unsigned char *in, *pkt, *out;
				uint64_t ctr;

				if (!tx)
					continue;
				rx = open_or_skip(id, lib, n);
				assert_non_null(rx);
				in = malloc(n);
				pkt = malloc(n + cipher_overhead(tx));
				out = malloc(n);
				fill(in, n, (unsigned)k);
				for (uint64_t p = 1; p <= 3; p++) {
					assert_int_equal(cipher_seal(tx, pkt, in, n, &olen), 0);
					assert_int_equal(olen, n + cipher_overhead(tx));
					assert_int_equal(olen, n + 8 + (cipher_is_aead(id) ? 16 : 0));
					if (id != CIPHER_NONE && n >= 15)
						assert_memory_not_equal(pkt + 8, in, n);
					assert_int_equal(cipher_unseal(rx, out, pkt, olen, &plen, &ctr), 0);
					assert_int_equal(plen, n);
					assert_int_equal(ctr, p);
					assert_memory_equal(out, in, n);
				}
				free(in);
				free(pkt);
				free(out);
				cipher_free(tx);
				cipher_free(rx);
				ran++;
			}
		}
	}
	/* "none" needs no library: at least its sizes ran in any build. */
	assert_true(ran >= (int)(sizeof(sizes) / sizeof(sizes[0])));
}

/* A flipped bit anywhere in an AEAD packet's ciphertext or tag is refused. */
static void test_aead_tamper(void **state)
{
	enum cipher_id ids[] = { CIPHER_CHACHA20_POLY1305, CIPHER_AES256GCM };
	enum cipher_lib libs[] = { CIPHER_LIB_SODIUM, CIPHER_LIB_OPENSSL, CIPHER_LIB_MBEDTLS };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		for (size_t l = 0; l < 3; l++) {
			struct cipher *tx = open_or_skip(ids[i], libs[l], 100), *rx;
			unsigned char in[100], pkt[124], out[100];
			size_t olen, plen;
			uint64_t ctr;

			if (!tx)
				continue;
			rx = open_or_skip(ids[i], libs[l], 100);
			fill(in, sizeof(in), 3);
			assert_int_equal(cipher_seal(tx, pkt, in, sizeof(in), &olen), 0);
			pkt[8 + 50] ^= 1;
			assert_int_equal(cipher_unseal(rx, out, pkt, olen, &plen, &ctr), -EBADMSG);
			pkt[8 + 50] ^= 1;
			pkt[olen - 1] ^= 0x80;
			assert_int_equal(cipher_unseal(rx, out, pkt, olen, &plen, &ctr), -EBADMSG);
			pkt[olen - 1] ^= 0x80;
			assert_int_equal(cipher_unseal(rx, out, pkt, olen, &plen, &ctr), 0);
			assert_memory_equal(out, in, sizeof(in));
			assert_int_equal(cipher_unseal(rx, out, pkt, 10, &plen, &ctr), -EBADMSG);
			cipher_free(tx);
			cipher_free(rx);
		}
	}
}

/* libsodium (or mbedTLS) seals, OpenSSL opens, and the other way round. */
static void test_libraries_interoperate(void **state)
{
	static const struct {
		enum cipher_id id;
		enum cipher_lib lib;
	} pairs[] = {
		{ CIPHER_CHACHA20_POLY1305, CIPHER_LIB_SODIUM }, { CIPHER_AES256GCM, CIPHER_LIB_SODIUM },
		{ CIPHER_CHACHA20_POLY1305, CIPHER_LIB_MBEDTLS }, { CIPHER_AES256GCM, CIPHER_LIB_MBEDTLS },
		{ CIPHER_AES128CTR, CIPHER_LIB_MBEDTLS }, { CIPHER_RC4, CIPHER_LIB_MBEDTLS },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		struct cipher *s = open_or_skip(pairs[i].id, pairs[i].lib, 1400);
		struct cipher *o = open_or_skip(pairs[i].id, CIPHER_LIB_OPENSSL, 1400);
		unsigned char in[1400], pkt[1424], pkt2[1424], out[1400];
		size_t olen, olen2, plen;
		uint64_t ctr;

		if (!s || !o) {
			cipher_free(s);
			cipher_free(o);
			continue;
		}
		fill(in, sizeof(in), 9);
		assert_int_equal(cipher_seal(s, pkt, in, sizeof(in), &olen), 0);
		assert_int_equal(cipher_seal(o, pkt2, in, sizeof(in), &olen2), 0);
		/* Same key, same counter: byte-identical packets, tag included. */
		assert_int_equal(olen, olen2);
		assert_memory_equal(pkt, pkt2, olen);
		assert_int_equal(cipher_unseal(o, out, pkt, olen, &plen, &ctr), 0);
		assert_memory_equal(out, in, sizeof(in));
		assert_int_equal(cipher_unseal(s, out, pkt2, olen2, &plen, &ctr), 0);
		assert_memory_equal(out, in, sizeof(in));
		cipher_free(s);
		cipher_free(o);
	}
}

/* Ciphers whose stream mode claims one keystream: 100 + 28 bytes equal 128 in one go. */
static void test_stream_continuity(void **state)
{
	static const struct {
		enum cipher_id id;
		enum cipher_lib lib;
		size_t first;	/* salsa20 continues by whole 64-byte blocks */
	} cases[] = {
		{ CIPHER_SALSA20, CIPHER_LIB_SODIUM, 64 },
		{ CIPHER_AES128CTR, CIPHER_LIB_OPENSSL, 100 },
		{ CIPHER_CHACHA20_POLY1305, CIPHER_LIB_OPENSSL, 100 },
		{ CIPHER_AES256GCM, CIPHER_LIB_OPENSSL, 100 },
		{ CIPHER_RC4, CIPHER_LIB_OPENSSL, 100 },
		{ CIPHER_AES128CTR, CIPHER_LIB_MBEDTLS, 100 },
		{ CIPHER_RC4, CIPHER_LIB_MBEDTLS, 100 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cipher *a = open_or_skip(cases[i].id, cases[i].lib, 128);
		struct cipher *b = open_or_skip(cases[i].id, cases[i].lib, 128);
		unsigned char x[128], y[128], plain[128];

		if (!a || !b) {
			cipher_free(a);
			cipher_free(b);
			continue;
		}
		fill(plain, sizeof(plain), 5);
		memcpy(x, plain, sizeof(x));
		memcpy(y, plain, sizeof(y));
		assert_int_equal(cipher_stream(a, x, 128), 0);
		assert_int_equal(cipher_stream(b, y, cases[i].first), 0);
		assert_int_equal(cipher_stream(b, y + cases[i].first, 128 - cases[i].first), 0);
		assert_memory_equal(x, y, sizeof(x));
		assert_memory_not_equal(x, plain, sizeof(x));
		cipher_free(a);
		cipher_free(b);
	}
}

/* RC4 has no nonce: a packet skipped or replayed is noticed. */
static void test_rc4_order(void **state)
{
	struct cipher *tx = open_or_skip(CIPHER_RC4, CIPHER_LIB_OPENSSL, 64), *rx;
	unsigned char in[64], p1[72], p2[72], out[64];
	size_t l1, l2, plen;
	uint64_t ctr;

	(void)state;
	if (!tx)
		return;		/* not in this build; open_or_skip() checked the reason */
	rx = open_or_skip(CIPHER_RC4, CIPHER_LIB_OPENSSL, 64);
	fill(in, sizeof(in), 1);
	assert_int_equal(cipher_seal(tx, p1, in, sizeof(in), &l1), 0);
	assert_int_equal(cipher_seal(tx, p2, in, sizeof(in), &l2), 0);
	assert_int_equal(cipher_unseal(rx, out, p2, l2, &plen, &ctr), -EPROTO);
	assert_int_equal(cipher_unseal(rx, out, p1, l1, &plen, &ctr), 0);
	assert_memory_equal(out, in, sizeof(in));
	assert_int_equal(cipher_unseal(rx, out, p2, l2, &plen, &ctr), 0);
	assert_memory_equal(out, in, sizeof(in));
	cipher_free(tx);
	cipher_free(rx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_missing_pairs_say_why),
		cmocka_unit_test(test_roundtrip_all),
		cmocka_unit_test(test_aead_tamper),
		cmocka_unit_test(test_libraries_interoperate),
		cmocka_unit_test(test_stream_continuity),
		cmocka_unit_test(test_rc4_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
