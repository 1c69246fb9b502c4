/* SPDX-License-Identifier: MIT */
#include "core/sysfs_file.h"

#include "core/error.h"
#include "core/sys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <tally/common.h>

int tly_sysfs_read(const char *path, char *buf, size_t size, enum tly_sysfs_read_mode mode)
{
	if (size == 0)
		return -EINVAL;
	int fd;
	do
		fd = tly_sys->open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return errno ? -errno : -EIO;

	struct stat st;
	int err = 0;
	if (tly_sys->fstat(fd, &st) < 0)
		err = errno ? -errno : -EIO;
	else if (!S_ISREG(st.st_mode))
		err = -TALLY_ESYSFS;
	/* One byte is kept for the NUL; in TLY_SYSFS_WHOLE mode a full buffer means the file did not fit. */
	size_t len = 0;
	while (!err && len < size - 1) {
		ssize_t n = tly_sys->read(fd, buf + len, size - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = errno ? -errno : -EIO;
		} else if (n == 0) {
			break;
		} else {
			len += (size_t)n;
		}
	}
	if (!err && len == size - 1 && mode == TLY_SYSFS_WHOLE) {
		/* Exactly size - 1 bytes fit; one more byte read tells a full file from a longer one. */
		char more;
		ssize_t n;
		do
			n = tly_sys->read(fd, &more, 1);
		while (n < 0 && errno == EINTR);
		if (n != 0)
			err = n > 0 ? -EFBIG : (errno ? -errno : -EIO);
	}
	tly_sys->close(fd);
	if (err)
		return err;
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' ' || buf[len - 1] == '\t'))
		len--;
	buf[len] = '\0';
	return (int)len;
}

int tly_sysfs_error(const char *path, int err, size_t size)
{
	if (err == -TALLY_ESYSFS)
		return tly_error(err, "cannot read %s: not a regular file (a FIFO or a device?)", path);
	if (err == -EFBIG)
		return tly_error(err, "cannot read %s: larger than the %zu bytes expected of it", path, size - 1);
	if (err == -ELOOP)
		return tly_error(err, "cannot read %s: a symbolic link, not followed", path);
	return tly_error(err, "cannot read %s: %s", path, tally_strerror(err));
}

int tly_path_join(char *path, size_t size, const char *root, const char *rel)
{
	int n = snprintf(path, size, "%s/%s", root, rel);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}
