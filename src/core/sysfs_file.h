/* SPDX-License-Identifier: MIT */
/*
 * Reading one small file of sysfs or procfs: the one way tally reads them, through the system call table
 * (fault injection reaches it). A tree under $TALLY_SYSFS_ROOT or a caller's root may be anyone's, so a
 * file is opened without following a final symbolic link and without blocking (a FIFO in its place must
 * not hang the caller), must be a regular file (sysfs attributes and procfs files are: S_IFREG), and is
 * never read past the caller's buffer.
 */
#ifndef TLY_SYSFS_FILE_H
#define TLY_SYSFS_FILE_H

#include <stddef.h>

enum tly_sysfs_read_mode {
	TLY_SYSFS_WHOLE, /* the file must fit: -EFBIG when it does not */
	TLY_SYSFS_HEAD,  /* the first size - 1 bytes are enough (the first CPU's block of cpuinfo) */
};

/* Reads path into buf (NUL-terminated, trailing white space removed). Returns the length, or a negative
 * code and records nothing: an open or read error (-ENOENT, -EACCES, ...; -ELOOP when the file is a
 * symbolic link), -TALLY_ESYSFS when it is not a regular file, -EFBIG when it does not fit in
 * TLY_SYSFS_WHOLE mode. Retries EINTR. */
int tly_sysfs_read(const char *path, char *buf, size_t size, enum tly_sysfs_read_mode mode);

/* Records why tly_sysfs_read(path, ..., size, ...) returned err as the last error ("cannot read PATH: not
 * a regular file (a FIFO?)") and returns err. */
int tly_sysfs_error(const char *path, int err, size_t size);

/* Joins "<root>/<rel>" into path (of size bytes). Returns 0, or -ENAMETOOLONG, recording nothing, when
 * it does not fit: a truncated path would name another file. */
int tly_path_join(char *path, size_t size, const char *root, const char *rel);

#endif
