/* SPDX-License-Identifier: MIT */
/*
 * Cipher backends over libsodium, OpenSSL EVP, mbedTLS and a built-in memcpy,
 * shared by `engpass cpu` and `engpass download`; see cipher.h for the interface and the packet
 * format. Each library's code is compiled only when the build has it
 * (config.h HAVE_LIBSODIUM / HAVE_OPENSSL / HAVE_MBEDTLS); the table of what exists does
 * not depend on the build, so a missing library is a reason, not a gap.
 *
 * Nonces come from the packet counter: 8 bytes little-endian for Salsa20
 * and Salsa20/12; 4 zero bytes then those 8 for the 96-bit nonces of
 * ChaCha20-Poly1305 (IETF) and AES-256-GCM, as WireGuard does; the counter
 * in the first 8 bytes of AES-128-CTR's 16-byte IV, so the block counter
 * runs in the last 8. RC4 has no nonce: one keystream runs across all
 * packets of a context, as in BitTorrent's MSE.
 *
 * RC4 is fetched from OpenSSL's legacy provider loaded into a private
 * library context (OSSL_LIB_CTX_new), not into the default one: loading
 * any provider explicitly into the default context stops OpenSSL from
 * loading the default provider on its own, which would change how every
 * other cipher in the process is found.
 *
 * mbedTLS (2.28, libmbedcrypto only) is the router build's backend, where
 * OpenSSL's libcrypto is too big (docs/embedded.md): AES-128-CTR,
 * AES-256-GCM, ChaCha20-Poly1305 and RC4 (ARC4, still in 2.28 when its
 * config has MBEDTLS_ARC4_C). Its AES runs from tables in C unless AES-NI
 * is compiled in and the CPU has it; the version string says which.
 */
#include "core/work/cipher.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "lib/xalloc.h"

#if HAVE_LIBSODIUM
#include <sodium.h>
#endif
#include "core/work/ossl.h"
#if HAVE_MBEDTLS
#include <mbedtls/aes.h>
#include <mbedtls/chachapoly.h>
#include <mbedtls/gcm.h>
#include <mbedtls/version.h>
#if defined(MBEDTLS_ARC4_C)
#include <mbedtls/arc4.h>
#endif
/* aesni.h is private from mbedTLS 3.0 on (newer OpenWrt): there, AES is reported as C tables. */
#if defined(MBEDTLS_AESNI_C) && MBEDTLS_VERSION_MAJOR < 3
#define ENGPASS_MBEDTLS_AESNI 1
#include <mbedtls/aesni.h>
#endif
#endif

/* Re-initialise OpenSSL stream contexts this often (AES-GCM allows 2^36 - 32 bytes per IV). */
#define STREAM_REKEY_BYTES (1ULL << 30)

static const char *const cipher_names[CIPHER_NCIPHERS] = {
	[CIPHER_SALSA2012] = "salsa2012",
	[CIPHER_SALSA20] = "salsa20",
	[CIPHER_CHACHA20_POLY1305] = "chacha20-poly1305",
	[CIPHER_AES256GCM] = "aes-256-gcm",
	[CIPHER_AES128CTR] = "aes-128-ctr",
	[CIPHER_RC4] = "rc4",
	[CIPHER_NONE] = "none",
};

static const char *const lib_names[CIPHER_NLIBS] = {
	[CIPHER_LIB_SODIUM] = "sodium",
	[CIPHER_LIB_OPENSSL] = "openssl",
	[CIPHER_LIB_MBEDTLS] = "mbedtls",
	[CIPHER_LIB_BUILTIN] = "builtin",
};

/* Which library implements which cipher, whatever this build has. */
static const bool in_lib[CIPHER_NCIPHERS][CIPHER_NLIBS] = {
	[CIPHER_SALSA2012] = { [CIPHER_LIB_SODIUM] = true },
	[CIPHER_SALSA20] = { [CIPHER_LIB_SODIUM] = true },
	[CIPHER_CHACHA20_POLY1305] = { [CIPHER_LIB_SODIUM] = true, [CIPHER_LIB_OPENSSL] = true,
				       [CIPHER_LIB_MBEDTLS] = true },
	[CIPHER_AES256GCM] = { [CIPHER_LIB_SODIUM] = true, [CIPHER_LIB_OPENSSL] = true, [CIPHER_LIB_MBEDTLS] = true },
	[CIPHER_AES128CTR] = { [CIPHER_LIB_OPENSSL] = true, [CIPHER_LIB_MBEDTLS] = true },
	[CIPHER_RC4] = { [CIPHER_LIB_OPENSSL] = true, [CIPHER_LIB_MBEDTLS] = true },
	[CIPHER_NONE] = { [CIPHER_LIB_BUILTIN] = true },
};

struct cipher {
	enum cipher_id id;
	enum cipher_lib lib;
	size_t max_len;
	size_t tag_len;
	uint64_t counter;	/* seal: last counter sent */
	uint64_t rx_counter;	/* unseal (rc4): last counter received */
	uint64_t stream_blocks;	/* stream: 64-byte blocks used (salsa20) or chunks (others) */
	uint64_t stream_bytes;	/* stream: bytes since the OpenSSL context was last initialised */
	unsigned char key[32];
	unsigned char *scratch;	/* max_len + tag: "none" copies, detached tags */
	char version[128];
#if HAVE_LIBSODIUM
	/* crypto_aead_aes256gcm_state must be 16-byte aligned; malloc may give 8. */
	unsigned char gcm_raw[sizeof(crypto_aead_aes256gcm_state) + 16];
	crypto_aead_aes256gcm_state *gcm;
#endif
#if HAVE_OPENSSL
	OSSL_LIB_CTX *libctx;	/* private context for the legacy provider (rc4) */
	OSSL_PROVIDER *legacy;
	EVP_CIPHER *evp;
	EVP_CIPHER_CTX *enc, *dec;
#endif
#if HAVE_MBEDTLS
	mbedtls_aes_context *mb_aes;		/* aes-128-ctr */
	unsigned char ctr_nonce[16], ctr_block[16];
	size_t ctr_off;
	mbedtls_gcm_context *mb_gcm;		/* aes-256-gcm */
	mbedtls_chachapoly_context *mb_ccp;	/* chacha20-poly1305 */
#if defined(MBEDTLS_ARC4_C)
	mbedtls_arc4_context *mb_arc4[2];	/* rc4: sender, receiver */
#endif
#endif
};

const char *cipher_name(enum cipher_id id)
{
	return (unsigned)id < CIPHER_NCIPHERS ? cipher_names[id] : "?";
}

int cipher_lookup(const char *name)
{
	for (int i = 0; i < CIPHER_NCIPHERS; i++)
		if (!strcmp(name, cipher_names[i]))
			return i;
	return -1;
}

const char *cipher_lib_name(enum cipher_lib lib)
{
	return (unsigned)lib < CIPHER_NLIBS ? lib_names[lib] : "?";
}

bool cipher_in_lib(enum cipher_id id, enum cipher_lib lib)
{
	return (unsigned)id < CIPHER_NCIPHERS && (unsigned)lib < CIPHER_NLIBS && in_lib[id][lib];
}

bool cipher_lib_built(enum cipher_lib lib)
{
	switch (lib) {
	case CIPHER_LIB_SODIUM:
		return HAVE_LIBSODIUM;
	case CIPHER_LIB_OPENSSL:
		return HAVE_OPENSSL;
	case CIPHER_LIB_MBEDTLS:
		return HAVE_MBEDTLS;
	default:
		return true;
	}
}

bool cipher_is_aead(enum cipher_id id)
{
	return id == CIPHER_CHACHA20_POLY1305 || id == CIPHER_AES256GCM;
}

static void put_le64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* The nonce or IV for packet COUNTER (see the file comment); 16 bytes. */
static void make_nonce(enum cipher_id id, uint64_t counter, unsigned char nonce[16])
{
	memset(nonce, 0, 16);
	if (id == CIPHER_CHACHA20_POLY1305 || id == CIPHER_AES256GCM)
		put_le64(nonce + 4, counter);
	else
		put_le64(nonce, counter);
}

/* ---- libsodium ------------------------------------------------------------ */

#if HAVE_LIBSODIUM
static int sodium_new(struct cipher *c, char *why, size_t whylen)
{
	if (sodium_init() < 0) {
		snprintf(why, whylen, "libsodium: sodium_init() failed");
		return -EIO;
	}
	if (c->id == CIPHER_AES256GCM) {
		uintptr_t p = (uintptr_t)c->gcm_raw;

		if (!crypto_aead_aes256gcm_is_available()) {
			snprintf(why, whylen, "libsodium's aes-256-gcm needs AES-NI and PCLMUL, which this CPU lacks");
			return -ENOTSUP;
		}
		c->gcm = (crypto_aead_aes256gcm_state *)((p + 15) & ~(uintptr_t)15);
		if (crypto_aead_aes256gcm_beforenm(c->gcm, c->key)) {
			snprintf(why, whylen, "libsodium: crypto_aead_aes256gcm_beforenm() failed");
			return -EIO;
		}
	}
	snprintf(c->version, sizeof(c->version), "libsodium %s", sodium_version_string());
	return 0;
}

static int sodium_seal(struct cipher *c, unsigned char *out, const unsigned char *in, size_t len,
		       const unsigned char *nonce)
{
	unsigned long long clen;

	switch (c->id) {
	case CIPHER_SALSA2012:
		return crypto_stream_salsa2012_xor(out, in, len, nonce, c->key) ? -EIO : 0;
	case CIPHER_SALSA20:
		return crypto_stream_salsa20_xor(out, in, len, nonce, c->key) ? -EIO : 0;
	case CIPHER_CHACHA20_POLY1305:
		return crypto_aead_chacha20poly1305_ietf_encrypt(out, &clen, in, len, NULL, 0, NULL, nonce,
								 c->key) ? -EIO : 0;
	case CIPHER_AES256GCM:
		return crypto_aead_aes256gcm_encrypt_afternm(out, &clen, in, len, NULL, 0, NULL, nonce,
							     c->gcm) ? -EIO : 0;
	default:
		return -EINVAL;
	}
}

static int sodium_unseal(struct cipher *c, unsigned char *out, const unsigned char *in, size_t clen,
			 const unsigned char *nonce)
{
	unsigned long long mlen;

	switch (c->id) {
	case CIPHER_SALSA2012:
		return crypto_stream_salsa2012_xor(out, in, clen, nonce, c->key) ? -EIO : 0;
	case CIPHER_SALSA20:
		return crypto_stream_salsa20_xor(out, in, clen, nonce, c->key) ? -EIO : 0;
	case CIPHER_CHACHA20_POLY1305:
		return crypto_aead_chacha20poly1305_ietf_decrypt(out, &mlen, NULL, in, clen, NULL, 0, nonce,
								 c->key) ? -EBADMSG : 0;
	case CIPHER_AES256GCM:
		return crypto_aead_aes256gcm_decrypt_afternm(out, &mlen, NULL, in, clen, NULL, 0, nonce,
							     c->gcm) ? -EBADMSG : 0;
	default:
		return -EINVAL;
	}
}

static int sodium_stream(struct cipher *c, unsigned char *buf, size_t len)
{
	unsigned char nonce[16];
	unsigned long long maclen;
	int r;

	switch (c->id) {
	case CIPHER_SALSA20:
		/* One keystream: the block counter continues, by whole 64-byte blocks. */
		memset(nonce, 0, sizeof(nonce));
		r = crypto_stream_salsa20_xor_ic(buf, buf, len, nonce, c->stream_blocks, c->key);
		c->stream_blocks += (len + 63) / 64;
		return r ? -EIO : 0;
	case CIPHER_SALSA2012:
		/* libsodium 1.0.18 has no salsa2012 _xor_ic: a new nonce per chunk. */
		make_nonce(c->id, ++c->stream_blocks, nonce);
		return crypto_stream_salsa2012_xor(buf, buf, len, nonce, c->key) ? -EIO : 0;
	case CIPHER_CHACHA20_POLY1305:
		make_nonce(c->id, ++c->stream_blocks, nonce);
		return crypto_aead_chacha20poly1305_ietf_encrypt_detached(buf, c->scratch, &maclen, buf, len, NULL,
									  0, NULL, nonce, c->key) ? -EIO : 0;
	case CIPHER_AES256GCM:
		make_nonce(c->id, ++c->stream_blocks, nonce);
		return crypto_aead_aes256gcm_encrypt_detached_afternm(buf, c->scratch, &maclen, buf, len, NULL, 0,
								      NULL, nonce, c->gcm) ? -EIO : 0;
	default:
		return -EINVAL;
	}
}
#endif

/* ---- OpenSSL -------------------------------------------------------------- */

#if HAVE_OPENSSL
/* The first queued OpenSSL error as text (or "no details"), queue cleared. */
static const char *ossl_error(char *buf, size_t len)
{
	unsigned long e = ERR_get_error();

	if (e)
		ERR_error_string_n(e, buf, len);
	else
		snprintf(buf, len, "no details");
	ERR_clear_error();
	return buf;
}

static const char *ossl_cipher_name(enum cipher_id id)
{
	switch (id) {
	case CIPHER_CHACHA20_POLY1305:
		return "ChaCha20-Poly1305";
	case CIPHER_AES256GCM:
		return "AES-256-GCM";
	case CIPHER_AES128CTR:
		return "AES-128-CTR";
	case CIPHER_RC4:
		return "RC4";
	default:
		return NULL;
	}
}

static int ossl_new(struct cipher *c, char *why, size_t whylen)
{
	const char *name = ossl_cipher_name(c->id);
	unsigned char iv[16];
	char e[160];

	if (!name)
		return -EINVAL;
	if (ossl_load(why, whylen) < 0)
		return -ENOTSUP;
	if (c->id == CIPHER_RC4) {
		c->libctx = OSSL_LIB_CTX_new();
		if (!c->libctx) {
			snprintf(why, whylen, "OpenSSL: cannot create a library context: %s", ossl_error(e, sizeof(e)));
			return -ENOMEM;
		}
		c->legacy = OSSL_PROVIDER_load(c->libctx, "legacy");
		if (!c->legacy) {
			snprintf(why, whylen, "OpenSSL legacy provider cannot be loaded: %s", ossl_error(e, sizeof(e)));
			return -ENOTSUP;
		}
	}
	c->evp = EVP_CIPHER_fetch(c->libctx, name, NULL);
	if (!c->evp) {
		snprintf(why, whylen, "OpenSSL cannot fetch %s: %s", name, ossl_error(e, sizeof(e)));
		return -ENOTSUP;
	}
	c->enc = EVP_CIPHER_CTX_new();
	c->dec = EVP_CIPHER_CTX_new();
	make_nonce(c->id, 0, iv);
	if (!c->enc || !c->dec || EVP_EncryptInit_ex2(c->enc, c->evp, c->key, iv, NULL) != 1 ||
	    EVP_DecryptInit_ex2(c->dec, c->evp, c->key, iv, NULL) != 1) {
		snprintf(why, whylen, "OpenSSL: cannot initialise %s: %s", name, ossl_error(e, sizeof(e)));
		return -EIO;
	}
	snprintf(c->version, sizeof(c->version), "%s%s", OpenSSL_version(OPENSSL_VERSION),
		 c->id == CIPHER_RC4 ? ", legacy provider" : "");
	return 0;
}

static void ossl_free(struct cipher *c)
{
	/* Nothing was made when libcrypto could not be loaded (and its functions are not there). */
	if (!c->enc && !c->dec && !c->evp && !c->legacy && !c->libctx)
		return;
	EVP_CIPHER_CTX_free(c->enc);
	EVP_CIPHER_CTX_free(c->dec);
	EVP_CIPHER_free(c->evp);
	if (c->legacy)
		OSSL_PROVIDER_unload(c->legacy);
	OSSL_LIB_CTX_free(c->libctx);
}

static int ossl_seal(struct cipher *c, unsigned char *out, const unsigned char *in, size_t len,
		     const unsigned char *nonce)
{
	int l = 0, l2 = 0;

	/* RC4 has no IV: its one keystream continues. */
	if (c->id != CIPHER_RC4 && EVP_EncryptInit_ex2(c->enc, NULL, NULL, nonce, NULL) != 1)
		return -EIO;
	if (EVP_EncryptUpdate(c->enc, out, &l, in, (int)len) != 1 || (size_t)l != len)
		return -EIO;
	if (cipher_is_aead(c->id)) {
		if (EVP_EncryptFinal_ex(c->enc, out + l, &l2) != 1 || l2 != 0)
			return -EIO;
		if (EVP_CIPHER_CTX_ctrl(c->enc, EVP_CTRL_AEAD_GET_TAG, (int)c->tag_len, out + len) != 1)
			return -EIO;
	}
	return 0;
}

static int ossl_unseal(struct cipher *c, unsigned char *out, const unsigned char *in, size_t clen,
		       const unsigned char *nonce)
{
	unsigned char tag[CIPHER_MAX_TAG];
	size_t len = clen - c->tag_len;
	int l = 0, l2 = 0;

	if (c->id != CIPHER_RC4 && EVP_DecryptInit_ex2(c->dec, NULL, NULL, nonce, NULL) != 1)
		return -EIO;
	if (EVP_DecryptUpdate(c->dec, out, &l, in, (int)len) != 1 || (size_t)l != len)
		return -EIO;
	if (cipher_is_aead(c->id)) {
		memcpy(tag, in + len, c->tag_len);
		if (EVP_CIPHER_CTX_ctrl(c->dec, EVP_CTRL_AEAD_SET_TAG, (int)c->tag_len, tag) != 1)
			return -EIO;
		if (EVP_DecryptFinal_ex(c->dec, out + l, &l2) != 1) {
			ERR_clear_error();
			return -EBADMSG;
		}
	}
	return 0;
}

static int ossl_stream(struct cipher *c, unsigned char *buf, size_t len)
{
	int l = 0;

	if (c->id != CIPHER_RC4 && c->stream_bytes + len > STREAM_REKEY_BYTES) {
		unsigned char iv[16];

		make_nonce(c->id, ++c->stream_blocks, iv);
		if (EVP_EncryptInit_ex2(c->enc, NULL, NULL, iv, NULL) != 1)
			return -EIO;
		c->stream_bytes = 0;
	}
	c->stream_bytes += len;
	if (EVP_EncryptUpdate(c->enc, buf, &l, buf, (int)len) != 1 || (size_t)l != len)
		return -EIO;
	return 0;
}
#endif

/* ---- mbedTLS ---------------------------------------------------------------- */

#if HAVE_MBEDTLS
static int mb_new(struct cipher *c, char *why, size_t whylen)
{
	const char *aes = "";
	int r = 0;

	switch (c->id) {
	case CIPHER_AES128CTR:
		c->mb_aes = xcalloc(1, sizeof(*c->mb_aes));
		mbedtls_aes_init(c->mb_aes);
		r = mbedtls_aes_setkey_enc(c->mb_aes, c->key, 128);
		break;
	case CIPHER_AES256GCM:
		c->mb_gcm = xcalloc(1, sizeof(*c->mb_gcm));
		mbedtls_gcm_init(c->mb_gcm);
		r = mbedtls_gcm_setkey(c->mb_gcm, MBEDTLS_CIPHER_ID_AES, c->key, 256);
		break;
	case CIPHER_CHACHA20_POLY1305:
		c->mb_ccp = xcalloc(1, sizeof(*c->mb_ccp));
		mbedtls_chachapoly_init(c->mb_ccp);
		r = mbedtls_chachapoly_setkey(c->mb_ccp, c->key);
		break;
	case CIPHER_RC4:
#if defined(MBEDTLS_ARC4_C)
		for (int i = 0; i < 2; i++) {
			c->mb_arc4[i] = xcalloc(1, sizeof(*c->mb_arc4[i]));
			mbedtls_arc4_init(c->mb_arc4[i]);
			mbedtls_arc4_setup(c->mb_arc4[i], c->key, 16);
		}
		break;
#else
		snprintf(why, whylen, "mbedTLS %s was built without MBEDTLS_ARC4_C (no RC4)", MBEDTLS_VERSION_STRING);
		return -ENOTSUP;
#endif
	default:
		return -EINVAL;
	}
	if (r) {
		snprintf(why, whylen, "mbedTLS: cannot set the %s key: error -0x%04x", cipher_names[c->id], (unsigned)-r);
		return -EIO;
	}
	if (c->id == CIPHER_AES128CTR || c->id == CIPHER_AES256GCM) {
		aes = ", AES in C tables (no AES instructions used)";
#if defined(ENGPASS_MBEDTLS_AESNI) && defined(MBEDTLS_HAVE_X86_64)
		if (mbedtls_aesni_has_support(MBEDTLS_AESNI_AES))
			aes = ", AES-NI";
#elif defined(MBEDTLS_AESNI_C)
		aes = ", AES-NI where the CPU has it (this mbedTLS does not say which it used)";
#endif
	}
	snprintf(c->version, sizeof(c->version), "%s%s", MBEDTLS_VERSION_STRING_FULL, aes);
	return 0;
}

static void mb_free(struct cipher *c)
{
	if (c->mb_aes)
		mbedtls_aes_free(c->mb_aes);
	if (c->mb_gcm)
		mbedtls_gcm_free(c->mb_gcm);
	if (c->mb_ccp)
		mbedtls_chachapoly_free(c->mb_ccp);
	free(c->mb_aes);
	free(c->mb_gcm);
	free(c->mb_ccp);
#if defined(MBEDTLS_ARC4_C)
	for (int i = 0; i < 2; i++) {
		if (c->mb_arc4[i])
			mbedtls_arc4_free(c->mb_arc4[i]);
		free(c->mb_arc4[i]);
	}
#endif
}

/* AES-128-CTR over LEN bytes from the counter block in c->ctr_nonce (continued by c->ctr_off). */
static int mb_ctr(struct cipher *c, unsigned char *out, const unsigned char *in, size_t len)
{
	return mbedtls_aes_crypt_ctr(c->mb_aes, len, &c->ctr_off, c->ctr_nonce, c->ctr_block, in, out) ? -EIO : 0;
}

static int mb_seal(struct cipher *c, unsigned char *out, const unsigned char *in, size_t len,
		   const unsigned char *nonce)
{
	switch (c->id) {
	case CIPHER_AES128CTR:
		memcpy(c->ctr_nonce, nonce, 16);
		c->ctr_off = 0;
		return mb_ctr(c, out, in, len);
	case CIPHER_AES256GCM:
		return mbedtls_gcm_crypt_and_tag(c->mb_gcm, MBEDTLS_GCM_ENCRYPT, len, nonce, 12, NULL, 0, in, out,
						 c->tag_len, out + len) ? -EIO : 0;
	case CIPHER_CHACHA20_POLY1305:
		return mbedtls_chachapoly_encrypt_and_tag(c->mb_ccp, len, nonce, NULL, 0, in, out, out + len) ? -EIO : 0;
#if defined(MBEDTLS_ARC4_C)
	case CIPHER_RC4:
		return mbedtls_arc4_crypt(c->mb_arc4[0], len, in, out) ? -EIO : 0;
#endif
	default:
		return -EINVAL;
	}
}

static int mb_unseal(struct cipher *c, unsigned char *out, const unsigned char *in, size_t clen,
		     const unsigned char *nonce)
{
	size_t len = clen - c->tag_len;
	int r;

	switch (c->id) {
	case CIPHER_AES128CTR:
		memcpy(c->ctr_nonce, nonce, 16);
		c->ctr_off = 0;
		return mb_ctr(c, out, in, len);
	case CIPHER_AES256GCM:
		r = mbedtls_gcm_auth_decrypt(c->mb_gcm, len, nonce, 12, NULL, 0, in + len, c->tag_len, in, out);
		return r == MBEDTLS_ERR_GCM_AUTH_FAILED ? -EBADMSG : r ? -EIO : 0;
	case CIPHER_CHACHA20_POLY1305:
		r = mbedtls_chachapoly_auth_decrypt(c->mb_ccp, len, nonce, NULL, 0, in + len, in, out);
		return r == MBEDTLS_ERR_CHACHAPOLY_AUTH_FAILED ? -EBADMSG : r ? -EIO : 0;
#if defined(MBEDTLS_ARC4_C)
	case CIPHER_RC4:
		return mbedtls_arc4_crypt(c->mb_arc4[1], len, in, out) ? -EIO : 0;
#endif
	default:
		return -EINVAL;
	}
}

static int mb_stream(struct cipher *c, unsigned char *buf, size_t len)
{
	unsigned char nonce[16];

	switch (c->id) {
	case CIPHER_AES128CTR:
		/* One keystream: the counter block and offset carry over (set to zero at creation). */
		return mb_ctr(c, buf, buf, len);
#if defined(MBEDTLS_ARC4_C)
	case CIPHER_RC4:
		return mbedtls_arc4_crypt(c->mb_arc4[0], len, buf, buf) ? -EIO : 0;
#endif
	default:
		/* The AEADs: a whole message per chunk, nonce + 1, tag into scratch. */
		make_nonce(c->id, ++c->stream_blocks, nonce);
		if (c->id == CIPHER_AES256GCM)
			return mbedtls_gcm_crypt_and_tag(c->mb_gcm, MBEDTLS_GCM_ENCRYPT, len, nonce, 12, NULL, 0, buf,
							 buf, c->tag_len, c->scratch) ? -EIO : 0;
		return mbedtls_chachapoly_encrypt_and_tag(c->mb_ccp, len, nonce, NULL, 0, buf, buf, c->scratch) ? -EIO
														: 0;
	}
}
#endif

/* ---- the interface -------------------------------------------------------- */

int cipher_new(struct cipher **out, enum cipher_id id, enum cipher_lib lib, size_t max_len, char *why,
	       size_t whylen)
{
	struct cipher *c;
	int r = 0;

	*out = NULL;
	snprintf(why, whylen, "no error");
	if ((unsigned)id >= CIPHER_NCIPHERS || (unsigned)lib >= CIPHER_NLIBS || !max_len || max_len > (1u << 30)) {
		snprintf(why, whylen, "invalid cipher, library or length");
		return -EINVAL;
	}
	if (!in_lib[id][lib]) {
		snprintf(why, whylen, "%s has no %s", lib == CIPHER_LIB_SODIUM ? "libsodium" :
			 lib == CIPHER_LIB_OPENSSL ? "OpenSSL" : lib == CIPHER_LIB_MBEDTLS ? "mbedTLS" : "engpass",
			 cipher_names[id]);
		return -ENOTSUP;
	}
	if (lib == CIPHER_LIB_SODIUM && !HAVE_LIBSODIUM) {
		snprintf(why, whylen, "built without libsodium");
		return -ENOTSUP;
	}
	if (lib == CIPHER_LIB_OPENSSL && !HAVE_OPENSSL) {
		snprintf(why, whylen, "built without openssl");
		return -ENOTSUP;
	}
	if (lib == CIPHER_LIB_MBEDTLS && !HAVE_MBEDTLS) {
		snprintf(why, whylen, "built without mbedtls");
		return -ENOTSUP;
	}

	c = xcalloc(1, sizeof(*c));
	c->id = id;
	c->lib = lib;
	c->max_len = max_len;
	c->tag_len = cipher_is_aead(id) ? 16 : 0;
	for (size_t i = 0; i < sizeof(c->key); i++)
		c->key[i] = (unsigned char)(0x5a ^ (i * 7));
	c->scratch = xmalloc(max_len + CIPHER_MAX_TAG);
	switch (lib) {
	case CIPHER_LIB_SODIUM:
#if HAVE_LIBSODIUM
		r = sodium_new(c, why, whylen);
#endif
		break;
	case CIPHER_LIB_OPENSSL:
#if HAVE_OPENSSL
		r = ossl_new(c, why, whylen);
#endif
		break;
	case CIPHER_LIB_MBEDTLS:
#if HAVE_MBEDTLS
		r = mb_new(c, why, whylen);
#endif
		break;
	default:
		snprintf(c->version, sizeof(c->version), "engpass built-in memcpy");
		break;
	}
	if (r) {
		cipher_free(c);
		return r;
	}
	*out = c;
	return 0;
}

void cipher_free(struct cipher *c)
{
	if (!c)
		return;
#if HAVE_OPENSSL
	if (c->lib == CIPHER_LIB_OPENSSL)
		ossl_free(c);
#endif
#if HAVE_MBEDTLS
	if (c->lib == CIPHER_LIB_MBEDTLS)
		mb_free(c);
#endif
	free(c->scratch);
	free(c);
}

size_t cipher_overhead(const struct cipher *c)
{
	return CIPHER_HEADER + c->tag_len;
}

int cipher_seal(struct cipher *c, unsigned char *out, const unsigned char *in, size_t len, size_t *outlen)
{
	unsigned char nonce[16];
	int r = -EINVAL;

	if (len > c->max_len)
		return -EINVAL;
	c->counter++;
	put_le64(out, c->counter);
	make_nonce(c->id, c->counter, nonce);
	switch (c->lib) {
	case CIPHER_LIB_SODIUM:
#if HAVE_LIBSODIUM
		r = sodium_seal(c, out + CIPHER_HEADER, in, len, nonce);
#endif
		break;
	case CIPHER_LIB_OPENSSL:
#if HAVE_OPENSSL
		r = ossl_seal(c, out + CIPHER_HEADER, in, len, nonce);
#endif
		break;
	case CIPHER_LIB_MBEDTLS:
#if HAVE_MBEDTLS
		r = mb_seal(c, out + CIPHER_HEADER, in, len, nonce);
#endif
		break;
	default:
		memcpy(out + CIPHER_HEADER, in, len);
		r = 0;
		break;
	}
	*outlen = CIPHER_HEADER + len + c->tag_len;
	return r;
}

int cipher_unseal(struct cipher *c, unsigned char *out, const unsigned char *in, size_t inlen,
		  size_t *outlen, uint64_t *counter)
{
	unsigned char nonce[16];
	size_t clen, len;
	int r = -EINVAL;

	if (inlen < CIPHER_HEADER + c->tag_len || inlen - CIPHER_HEADER - c->tag_len > c->max_len)
		return -EBADMSG;
	clen = inlen - CIPHER_HEADER;
	len = clen - c->tag_len;
	*counter = get_le64(in);
	if (c->id == CIPHER_RC4) {
		if (*counter != c->rx_counter + 1)
			return -EPROTO;
		c->rx_counter = *counter;
	}
	make_nonce(c->id, *counter, nonce);
	switch (c->lib) {
	case CIPHER_LIB_SODIUM:
#if HAVE_LIBSODIUM
		r = sodium_unseal(c, out, in + CIPHER_HEADER, clen, nonce);
#endif
		break;
	case CIPHER_LIB_OPENSSL:
#if HAVE_OPENSSL
		r = ossl_unseal(c, out, in + CIPHER_HEADER, clen, nonce);
#endif
		break;
	case CIPHER_LIB_MBEDTLS:
#if HAVE_MBEDTLS
		r = mb_unseal(c, out, in + CIPHER_HEADER, clen, nonce);
#endif
		break;
	default:
		memcpy(out, in + CIPHER_HEADER, len);
		r = 0;
		break;
	}
	*outlen = len;
	return r;
}

int cipher_stream(struct cipher *c, unsigned char *buf, size_t len)
{
	if (len > c->max_len)
		return -EINVAL;
	switch (c->lib) {
	case CIPHER_LIB_SODIUM:
#if HAVE_LIBSODIUM
		return sodium_stream(c, buf, len);
#endif
		break;
	case CIPHER_LIB_OPENSSL:
#if HAVE_OPENSSL
		return ossl_stream(c, buf, len);
#endif
		break;
	case CIPHER_LIB_MBEDTLS:
#if HAVE_MBEDTLS
		return mb_stream(c, buf, len);
#endif
		break;
	default:
		memcpy(c->scratch, buf, len);
		/* The copy must happen even though nothing reads it. */
		__asm__ __volatile__("" : : "r"(c->scratch) : "memory");
		return 0;
	}
	return -EINVAL;
}

const char *cipher_lib_version(const struct cipher *c)
{
	return c->version;
}

static const char *describe_sodium(enum cipher_id id, enum cipher_use use)
{
	bool stream = use == CIPHER_USE_STREAM;

	switch (id) {
	case CIPHER_SALSA2012:
		return stream ? "crypto_stream_salsa2012_xor() per chunk, in place, nonce + 1 per chunk "
				"(libsodium 1.0.18 has no salsa2012 _xor_ic to continue one keystream)"
			      : "crypto_stream_salsa2012_xor() per packet, nonce = packet counter; no MAC "
				"(fastd pairs it with its own UMAC)";
	case CIPHER_SALSA20:
		return stream ? "crypto_stream_salsa20_xor_ic() per chunk, in place, one keystream "
				"(block counter advanced by whole 64-byte blocks)"
			      : "crypto_stream_salsa20_xor() per packet, nonce = packet counter; no MAC";
	case CIPHER_CHACHA20_POLY1305:
		return stream ? "crypto_aead_chacha20poly1305_ietf_encrypt_detached() per chunk, in place, "
				"nonce + 1 and a 16-byte tag per chunk (libsodium has no incremental AEAD)"
			      : "crypto_aead_chacha20poly1305_ietf_encrypt() per packet (IETF, 96-bit nonce "
				"from the counter, no AAD, 16-byte tag)";
	case CIPHER_AES256GCM:
		return stream ? "crypto_aead_aes256gcm_encrypt_detached_afternm() per chunk, in place, "
				"nonce + 1 and a 16-byte tag per chunk (libsodium has no incremental AEAD)"
			      : "crypto_aead_aes256gcm_encrypt_afternm() per packet (key expanded once with "
				"beforenm, 96-bit nonce from the counter, no AAD, 16-byte tag)";
	default:
		return "?";
	}
}

static const char *describe_openssl(enum cipher_id id, enum cipher_use use)
{
	if (use == CIPHER_USE_STREAM)
		return id == CIPHER_RC4 ?
			"EVP_EncryptUpdate() per chunk on one context, in place, one keystream "
			"(as openssl speed -evp)" :
			"EVP_EncryptUpdate() per chunk on one context, in place, IV set once per GiB, "
			"no tag taken (as openssl speed -evp without -aead)";
	switch (id) {
	case CIPHER_CHACHA20_POLY1305:
	case CIPHER_AES256GCM:
		return "per packet: EVP_EncryptInit_ex2() with a new 96-bit IV from the counter, "
		       "EVP_EncryptUpdate(), EVP_EncryptFinal_ex(), EVP_CTRL_AEAD_GET_TAG (16 bytes); no AAD";
	case CIPHER_AES128CTR:
		return "per packet: EVP_EncryptInit_ex2() with a new IV from the counter, EVP_EncryptUpdate(); "
		       "no MAC (fastd pairs it with its own UMAC)";
	case CIPHER_RC4:
		return "EVP_EncryptUpdate() per packet on one context: RC4 has no nonce, one keystream runs "
		       "across packets (as BitTorrent MSE); no MAC";
	default:
		return "?";
	}
}

static const char *describe_mbedtls(enum cipher_id id, enum cipher_use use)
{
	bool stream = use == CIPHER_USE_STREAM;

	switch (id) {
	case CIPHER_AES128CTR:
		return stream ? "mbedtls_aes_crypt_ctr() per chunk, in place, one keystream (counter block and "
				"offset carried over)"
			      : "per packet: mbedtls_aes_crypt_ctr() from a new counter block (IV from the packet "
				"counter); no MAC (fastd pairs it with its own UMAC)";
	case CIPHER_AES256GCM:
		return stream ? "mbedtls_gcm_crypt_and_tag() per chunk, in place, nonce + 1 and a 16-byte tag "
				"per chunk"
			      : "mbedtls_gcm_crypt_and_tag() per packet (key expanded once, 96-bit nonce from the "
				"counter, no AAD, 16-byte tag)";
	case CIPHER_CHACHA20_POLY1305:
		return stream ? "mbedtls_chachapoly_encrypt_and_tag() per chunk, in place, nonce + 1 and a "
				"16-byte tag per chunk"
			      : "mbedtls_chachapoly_encrypt_and_tag() per packet (96-bit nonce from the counter, "
				"no AAD, 16-byte tag)";
	case CIPHER_RC4:
		return stream ? "mbedtls_arc4_crypt() per chunk, in place, one keystream"
			      : "mbedtls_arc4_crypt() per packet on one context: RC4 has no nonce, one keystream "
				"runs across packets (as BitTorrent MSE); no MAC";
	default:
		return "?";
	}
}

const char *cipher_describe(const struct cipher *c, enum cipher_use use)
{
	switch (c->lib) {
	case CIPHER_LIB_SODIUM:
		return describe_sodium(c->id, use);
	case CIPHER_LIB_OPENSSL:
		return describe_openssl(c->id, use);
	case CIPHER_LIB_MBEDTLS:
		return describe_mbedtls(c->id, use);
	default:
		return use == CIPHER_USE_STREAM ? "memcpy() of each chunk to a second buffer (fastd's null method copies)"
						: "memcpy() of each packet behind the 8-byte header (fastd's null method)";
	}
}
