/* SPDX-License-Identifier: MIT */
/*
 * The users that HTTP basic authentication lets in: --basic-auth-file's lines user:secret, the secret a
 * bcrypt ($2a$, $2b$, $2y$) or yescrypt ($y$) hash as htpasswd -B and mkpasswd write them (checked with
 * libxcrypt's crypt_r), or a password in the clear, accepted with a warning. Every comparison takes the
 * same time whatever the user name and password sent, right or wrong.
 */
#ifndef TALLY_EXPORTER_BASIC_AUTH_H
#define TALLY_EXPORTER_BASIC_AUTH_H

#include <stdbool.h>
#include <stddef.h>

struct basic_auth;

/* The entries in TEXT, the file PATH's (blank lines and '#' comments skipped); says on stderr, once for
 * each, which keep their password in the clear. NULL with the reason in err (a line that is not
 * user:secret, a hash of another kind or one crypt refuses, no entry). */
struct basic_auth *basic_auth_parse(const char *text, const char *path, char *err, size_t err_len);

/* Whether user and password are those of an entry. Thread-safe: scrapers are answered in parallel. */
bool basic_auth_check(const struct basic_auth *a, const char *user, const char *password);

void basic_auth_free(struct basic_auth *a);

#endif
