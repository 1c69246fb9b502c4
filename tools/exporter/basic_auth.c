/* SPDX-License-Identifier: MIT */
#include "exporter/basic_auth.h"

#include <crypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct basic_auth_entry {
	char *user, *secret;
	bool hashed;                 /* secret is a crypt(5) hash, else the password itself */
};

struct basic_auth {
	struct basic_auth_entry *entries;
	size_t nr;
};

/* The hashes accepted: those htpasswd -B (bcrypt) and mkpasswd's default (yescrypt) write. Others (MD5,
 * SHA-crypt, DES) are refused rather than compared as passwords. */
static const char *const hash_prefixes[] = { "$2a$", "$2b$", "$2y$", "$y$" };

/* Whether the NUL-terminated KNOWN (len known_len) equals SENT (len sent_len), in a time that depends on
 * sent_len alone: every byte of SENT is compared, with KNOWN's terminator past its end, and no early
 * exit tells how long a prefix was right. */
static bool equal_in_constant_time(const char *known, size_t known_len, const char *sent, size_t sent_len)
{
	unsigned char diff = (unsigned char)(known_len != sent_len);
	for (size_t i = 0; i < sent_len; i++) {
		size_t k = i < known_len ? i : known_len;
		diff |= (unsigned char)(known[k] ^ sent[i]);
	}
	return diff == 0;
}

/* crypt_r of PASSWORD with the hash as its setting: the hash itself when the password is right; NULL or
 * a string starting '*' where the setting is refused. The result is malloc'd (crypt_data is 32 KiB:
 * not for a server thread's stack). */
static char *hash_with(const char *password, const char *setting)
{
	struct crypt_data *data = calloc(1, sizeof(*data));
	if (!data)
		return NULL;
	const char *out = crypt_r(password, setting, data);
	char *copy = out && out[0] != '*' ? strdup(out) : NULL;
	free(data);
	return copy;
}

static bool secret_matches(const struct basic_auth_entry *e, const char *password)
{
	size_t secret_len = strlen(e->secret);
	if (!e->hashed)
		return equal_in_constant_time(e->secret, secret_len, password, strlen(password));
	char *hashed = hash_with(password, e->secret);
	bool ok = hashed && equal_in_constant_time(e->secret, secret_len, hashed, strlen(hashed));
	free(hashed);
	return ok;
}

bool basic_auth_check(const struct basic_auth *a, const char *user, const char *password)
{
	const struct basic_auth_entry *found = NULL;
	size_t user_len = strlen(user);
	/* Every name compared, none skipped once one matched: the time says nothing of which did. */
	for (size_t i = 0; i < a->nr; i++) {
		bool same = equal_in_constant_time(a->entries[i].user, strlen(a->entries[i].user), user, user_len);
		if (same && !found)
			found = &a->entries[i];
	}
	/* An unknown user costs a check of the first entry's secret too: no quicker 401 tells it is unknown. */
	bool ok = secret_matches(found ? found : &a->entries[0], password);
	return ok && found;
}

/* The secret of entry LINE checked: a hash of the kinds accepted that crypt takes whole, or a password.
 * 0, or -1 with the reason in err. */
static int secret_check(struct basic_auth_entry *e, const char *path, int line, char *err, size_t err_len)
{
	for (size_t k = 0; k < sizeof(hash_prefixes) / sizeof(hash_prefixes[0]); k++)
		e->hashed |= strncmp(e->secret, hash_prefixes[k], strlen(hash_prefixes[k])) == 0;
	if (!e->hashed && e->secret[0] != '$')
		return 0;
	char *again = e->hashed ? hash_with("", e->secret) : NULL;
	bool whole = again && strlen(again) == strlen(e->secret);
	free(again);
	if (whole)
		return 0;
	snprintf(err, err_len, "--basic-auth-file %s:%d: user %s: %s", path, line, e->user,
	         e->hashed ? "the hash is refused by crypt (cut short or malformed?)"
	                   : "a hash of a kind not accepted: bcrypt ($2b$, htpasswd -nB USER) or yescrypt ($y$, mkpasswd)");
	return -1;
}

/* One line user:secret appended. 0, or -1 with the reason in err. */
static int entry_add(struct basic_auth *a, const char *line, size_t len, const char *path, int line_no, char *err,
                     size_t err_len)
{
	const char *colon = memchr(line, ':', len);
	if (!colon || colon == line) {
		snprintf(err, err_len, "--basic-auth-file %s:%d: expected user:password or user:HASH (htpasswd -nB USER)",
		         path, line_no);
		return -1;
	}
	/* An empty secret would let in anyone who sends the user's name and nothing: a mistake, not a policy. */
	if (colon + 1 == line + len) {
		snprintf(err, err_len, "--basic-auth-file %s:%d: user %.*s has an empty password (htpasswd -nB USER)",
		         path, line_no, (int)(colon - line), line);
		return -1;
	}
	struct basic_auth_entry *grown = realloc(a->entries, (a->nr + 1) * sizeof(*grown));
	if (!grown)
		return snprintf(err, err_len, "out of memory"), -1;
	a->entries = grown;
	struct basic_auth_entry *e = &grown[a->nr];
	*e = (struct basic_auth_entry){ strndup(line, (size_t)(colon - line)),
	                                strndup(colon + 1, len - (size_t)(colon - line) - 1), false };
	if (!e->user || !e->secret) {
		free(e->user);
		free(e->secret);
		return snprintf(err, err_len, "out of memory"), -1;
	}
	a->nr++;
	return secret_check(e, path, line_no, err, err_len);
}

struct basic_auth *basic_auth_parse(const char *text, const char *path, char *err, size_t err_len)
{
	struct basic_auth *a = calloc(1, sizeof(*a));
	if (!a)
		return snprintf(err, err_len, "out of memory"), NULL;
	int line_no = 0;
	for (const char *line = text; *line;) {
		size_t len = strcspn(line, "\n"), end = len;
		line_no++;
		while (end && line[end - 1] == '\r')
			end--;
		if (end && line[0] != '#' && entry_add(a, line, end, path, line_no, err, err_len) < 0)
			return basic_auth_free(a), NULL;
		line += len + (line[len] == '\n');
	}
	if (!a->nr) {
		snprintf(err, err_len, "--basic-auth-file %s: no user:HASH line (htpasswd -nB USER writes one)", path);
		return basic_auth_free(a), NULL;
	}
	for (size_t i = 0; i < a->nr; i++)
		if (!a->entries[i].hashed)
			fprintf(stderr, "tally exporter: warning: --basic-auth-file %s: user %s's password is kept in the "
			        "clear: keep a bcrypt hash instead (htpasswd -nB %s)\n", path, a->entries[i].user,
			        a->entries[i].user);
	return a;
}

void basic_auth_free(struct basic_auth *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nr; i++) {
		free(a->entries[i].user);
		free(a->entries[i].secret);
	}
	free(a->entries);
	free(a);
}
