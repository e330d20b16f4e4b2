/* SPDX-License-Identifier: MIT */
/*
 * OpenSSL's libcrypto, loaded only when a step needs it (dlopen). Linked
 * normally, libcrypto's load-time relocations alone made 1.4 MiB of every
 * engpass process resident -- a net server or a disk run that never
 * touches a cipher included -- which put the full build over issue 11's
 * 4 MiB RSS budget. Now only `engpass cpu --lib openssl` and the torrent
 * workload's --verify (SHA-1) load it.
 *
 * Code that calls OpenSSL includes this header after OpenSSL's own: every
 * function below is then redirected (by a macro of its own name) through a
 * table filled by ossl_load(), so the calling code reads as plain OpenSSL.
 * ossl_load() must have returned 0 before the first call.
 *
 * ossl_api_ is process-global on purpose: it is the table the dynamic
 * linker would have filled, written once under dlib_load()'s lock and
 * read-only afterwards. core/work/dlib.h explains why that is the documented
 * exception to "no global mutable state" and why it is thread-safe.
 */
#ifndef ENGPASS_OSSL_H
#define ENGPASS_OSSL_H

#include <stddef.h>

#include "config.h"

#if HAVE_OPENSSL
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

/* The shared object loaded, by its SONAME (OpenSSL 3's ABI). */
#define OSSL_SONAME "libcrypto.so.3"

#define OSSL_FUNCS(X) \
	X(ERR_clear_error) X(ERR_error_string_n) X(ERR_get_error) \
	X(EVP_CIPHER_CTX_ctrl) X(EVP_CIPHER_CTX_free) X(EVP_CIPHER_CTX_new) \
	X(EVP_CIPHER_fetch) X(EVP_CIPHER_free) \
	X(EVP_DecryptFinal_ex) X(EVP_DecryptInit_ex2) X(EVP_DecryptUpdate) \
	X(EVP_EncryptFinal_ex) X(EVP_EncryptInit_ex2) X(EVP_EncryptUpdate) \
	X(EVP_DigestFinal_ex) X(EVP_DigestInit_ex) X(EVP_DigestUpdate) \
	X(EVP_MD_CTX_free) X(EVP_MD_CTX_new) X(EVP_sha1) \
	X(OSSL_LIB_CTX_free) X(OSSL_LIB_CTX_new) X(OSSL_PROVIDER_load) X(OSSL_PROVIDER_unload) \
	X(OpenSSL_version)

struct ossl_api {
#define OSSL_MEMBER_(f) __typeof__(f) *f;
	OSSL_FUNCS(OSSL_MEMBER_)
#undef OSSL_MEMBER_
};

extern struct ossl_api ossl_api_;

#ifndef OSSL_NO_REDIRECT
#define ERR_clear_error ossl_api_.ERR_clear_error
#define ERR_error_string_n ossl_api_.ERR_error_string_n
#define ERR_get_error ossl_api_.ERR_get_error
#define EVP_CIPHER_CTX_ctrl ossl_api_.EVP_CIPHER_CTX_ctrl
#define EVP_CIPHER_CTX_free ossl_api_.EVP_CIPHER_CTX_free
#define EVP_CIPHER_CTX_new ossl_api_.EVP_CIPHER_CTX_new
#define EVP_CIPHER_fetch ossl_api_.EVP_CIPHER_fetch
#define EVP_CIPHER_free ossl_api_.EVP_CIPHER_free
#define EVP_DecryptFinal_ex ossl_api_.EVP_DecryptFinal_ex
#define EVP_DecryptInit_ex2 ossl_api_.EVP_DecryptInit_ex2
#define EVP_DecryptUpdate ossl_api_.EVP_DecryptUpdate
#define EVP_EncryptFinal_ex ossl_api_.EVP_EncryptFinal_ex
#define EVP_EncryptInit_ex2 ossl_api_.EVP_EncryptInit_ex2
#define EVP_EncryptUpdate ossl_api_.EVP_EncryptUpdate
#define EVP_DigestFinal_ex ossl_api_.EVP_DigestFinal_ex
#define EVP_DigestInit_ex ossl_api_.EVP_DigestInit_ex
#define EVP_DigestUpdate ossl_api_.EVP_DigestUpdate
#define EVP_MD_CTX_free ossl_api_.EVP_MD_CTX_free
#define EVP_MD_CTX_new ossl_api_.EVP_MD_CTX_new
#define EVP_sha1 ossl_api_.EVP_sha1
#define OSSL_LIB_CTX_free ossl_api_.OSSL_LIB_CTX_free
#define OSSL_LIB_CTX_new ossl_api_.OSSL_LIB_CTX_new
#define OSSL_PROVIDER_load ossl_api_.OSSL_PROVIDER_load
#define OSSL_PROVIDER_unload ossl_api_.OSSL_PROVIDER_unload
#define OpenSSL_version ossl_api_.OpenSSL_version
#endif
#endif

/*
 * Loads libcrypto and resolves every function above, once per process
 * (thread-safe). Returns 0, or -ENOTSUP with the reason in WHY (the
 * library missing, a symbol missing, or a build without OpenSSL).
 */
int ossl_load(char *why, size_t whylen);

#endif
