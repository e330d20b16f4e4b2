/* SPDX-License-Identifier: MIT */
/*
 * Cipher backends of `engpass cpu`: one small interface over libsodium,
 * OpenSSL's EVP layer, mbedTLS (the router build's) and a built-in "none" (memcpy), so the benchmark can
 * time each cipher from each library the same way. Nothing here is a
 * hand-written cipher: every byte of keystream and every tag comes from the
 * library named in the row.
 *
 * Three ways of using a cipher are offered, matching the benchmark modes:
 *   seal/unseal  one packet, as a VPN does it: the sender increments a
 *                64-bit counter, writes it as an 8-byte header, derives
 *                the nonce from it, encrypts the payload behind the header
 *                and appends a 16-byte tag for AEADs; the receiver reads
 *                the counter back, decrypts and verifies the tag.
 *   stream       one long buffer in chunks, encrypted in place, keystream
 *                continuing from chunk to chunk where the library allows it
 *                (OpenSSL: one EVP context fed with EVP_EncryptUpdate, as
 *                `openssl speed -evp` does). cipher_describe() says
 *                exactly what each backend does.
 *
 * The table of backends is fixed at compile time and independent of the
 * build: a cipher/library pair that exists in principle but not in this
 * build (or not on this CPU, or whose OpenSSL provider will not load) is
 * reported by cipher_new() as -ENOTSUP with the reason, so the
 * benchmark can list it as skipped instead of dropping it.
 *
 * A context is used by one thread at a time. Keys are fixed and the same
 * for every context, so any seal context interoperates with any unseal
 * context of the same cipher and library; the figures do not depend on
 * the key.
 */
#ifndef ENGPASS_CORE_CIPHER_H
#define ENGPASS_CORE_CIPHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/compiler.h"

enum cipher_id {
	CIPHER_SALSA2012,
	CIPHER_SALSA20,
	CIPHER_CHACHA20_POLY1305,
	CIPHER_AES256GCM,
	CIPHER_AES128CTR,
	CIPHER_RC4,
	CIPHER_NONE,
	CIPHER_NCIPHERS,
};

enum cipher_lib {
	CIPHER_LIB_SODIUM,
	CIPHER_LIB_OPENSSL,
	CIPHER_LIB_MBEDTLS,
	CIPHER_LIB_BUILTIN,	/* only for "none" */
	CIPHER_NLIBS,
};

enum cipher_use {
	CIPHER_USE_PACKET,		/* seal (and unseal) one packet at a time */
	CIPHER_USE_STREAM,		/* cipher_stream() over a long buffer */
	CIPHER_USE_UDP,		/* seal, loopback UDP, unseal */
};

/* Bytes of the packet header (the 64-bit counter) written by seal. */
#define CIPHER_HEADER 8
/* Largest tag any backend appends. */
#define CIPHER_MAX_TAG 16

struct cipher;

/* Name as used on the command line, e.g. "chacha20-poly1305"; static. */
const char *cipher_name(enum cipher_id id);
/* The id for NAME, or -1 when there is no such cipher. */
int cipher_lookup(const char *name);
/* "sodium", "openssl", "mbedtls", "builtin"; static. */
const char *cipher_lib_name(enum cipher_lib lib);
/* True when the table has an implementation of ID in LIB (built or not). */
bool cipher_in_lib(enum cipher_id id, enum cipher_lib lib);
/* True when this build has LIB (builtin: always). */
bool cipher_lib_built(enum cipher_lib lib);
/* True for ciphers that append a tag (AEADs). */
bool cipher_is_aead(enum cipher_id id);

/*
 * Creates a context for cipher ID from library LIB, able to handle
 * payloads of up to MAX_LEN bytes (> 0). Returns 0 and *OUT; -ENOTSUP
 * when the pair cannot run in this build or on this machine; or another
 * -errno when the library failed. In both error cases WHY (WHYLEN bytes)
 * holds one line saying why ("built without libsodium", "OpenSSL legacy
 * provider cannot be loaded: ..."). Caller frees with cipher_free().
 */
MUST_CHECK int cipher_new(struct cipher **out, enum cipher_id id, enum cipher_lib lib, size_t max_len,
			  char *why, size_t whylen);
/* Frees C and everything its library allocated; NULL is ignored. */
void cipher_free(struct cipher *c);

/* Bytes seal adds to a payload: header plus tag. */
size_t cipher_overhead(const struct cipher *c);

/*
 * Seals one packet: increments the context's counter, writes the header,
 * encrypts LEN (<= max_len) bytes of IN into OUT behind it and appends the
 * tag. OUT must hold LEN + cipher_overhead() bytes and must not overlap
 * IN. Sets *OUTLEN. Returns 0, or -EIO when the library reports an error.
 */
MUST_CHECK int cipher_seal(struct cipher *c, unsigned char *out, const unsigned char *in, size_t len,
			   size_t *outlen);

/*
 * Opens a sealed packet IN of INLEN bytes into OUT (room for max_len
 * bytes). Sets *OUTLEN and *COUNTER (the sender's counter). Returns 0;
 * -EBADMSG when the packet is too short, too long or its tag does not
 * verify; -EPROTO when a cipher without a nonce (rc4) receives packets out
 * of order; -EIO on a library error.
 */
MUST_CHECK int cipher_unseal(struct cipher *c, unsigned char *out, const unsigned char *in, size_t inlen,
			     size_t *outlen, uint64_t *counter);

/*
 * Encrypts LEN (<= max_len) bytes of BUF in place as the next chunk of one
 * long stream (for "none": copies them to a scratch buffer). Returns 0 or
 * -EIO.
 */
MUST_CHECK int cipher_stream(struct cipher *c, unsigned char *buf, size_t len);

/*
 * What one operation of USE does with this context, in one line of
 * library calls, for the method block; static string.
 */
const char *cipher_describe(const struct cipher *c, enum cipher_use use);

/* The library and its version, e.g. "libsodium 1.0.18"; valid while C lives. */
const char *cipher_lib_version(const struct cipher *c);

#endif
