/* Reading and writing close series: the entry points here; raw little-endian float64 in f64.c, CSV in csv.c,
 * .npy in npy.c (docs/spec.md §1, "real data"); series_formats.h is what they share.
 *
 * The format follows the file name: ".csv" is CSV, ".npy" is NumPy's format, anything else is raw f64.
 * A reader loads the whole file, decodes it, and passes the values through hs_check_series, so a caller
 * never sees a NaN, an infinity or a non-positive price.  Every error message starts with the file name
 * and says what is wrong with the file (wrong dtype, truncated header, a non-numeric CSV cell with its line
 * and column, ...).  Bytes are decoded explicitly as little-endian, so big-endian hosts read the same
 * files.
 */
#define _XOPEN_SOURCE 700 /* realpath, lstat, S_ISSOCK */

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hmasweep.h"
#include "series_formats.h"

enum series_format { FORMAT_RAW_F64, FORMAT_CSV, FORMAT_NPY };

/* ---- small helpers ----------------------------------------------------------------------------------- */

static int ends_with_ignoring_case(const char *text, const char *suffix) {
    size_t text_len = strlen(text), suffix_len = strlen(suffix);
    if (suffix_len > text_len)
        return 0;
    const char *tail = text + text_len - suffix_len;
    for (size_t i = 0; i < suffix_len; i++)
        if (tolower((unsigned char)tail[i]) != tolower((unsigned char)suffix[i]))
            return 0;
    return 1;
}

/* THE rule from a file name to a format, for reading and writing alike (issue 10, defect 12: `gen` had
 * matched ".csv" case-sensitively while the reader did not). */
const char *hs_series_format(const char *path) {
    if (path && ends_with_ignoring_case(path, ".csv"))
        return "csv";
    if (path && ends_with_ignoring_case(path, ".npy"))
        return "npy";
    return "f64";
}

static int format_from_name(const char *format, enum series_format *out) {
    if (strcmp(format, "f64") == 0)
        *out = FORMAT_RAW_F64;
    else if (strcmp(format, "csv") == 0)
        *out = FORMAT_CSV;
    else if (strcmp(format, "npy") == 0)
        *out = FORMAT_NPY;
    else
        return 0;
    return 1;
}

/* Reads the whole input into one malloc'ed block, at most max_bytes (issue 10, defect 6: /dev/zero used
 * to be read until memory ran out).  Only a regular file, a pipe (a named one, or stdin as "-") is read:
 * a device or a socket is refused by name.  A regular file is read into a block of its size, so the
 * decoders can convert it in place (one copy of the data, not two). */
static hs_status read_input(const char *path, size_t max_bytes, unsigned char **data, size_t *len, hs_error *err) {
    *data = NULL;
    *len = 0;
    int from_stdin = strcmp(path, "-") == 0;
    int fd = from_stdin ? STDIN_FILENO : open(path, O_RDONLY);
    if (fd < 0)
        return hs_fail(err, HS_ERR_DATA, "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        if (!from_stdin)
            close(fd);
        return hs_fail(err, HS_ERR_DATA, "cannot stat %s: %s", path, strerror(e));
    }
    const char *refuse = S_ISDIR(st.st_mode)    ? "a directory"
                         : S_ISCHR(st.st_mode)  ? "a character device"
                         : S_ISBLK(st.st_mode)  ? "a block device"
                         : S_ISSOCK(st.st_mode) ? "a socket"
                                                : NULL;
    if (refuse && !from_stdin) {
        close(fd);
        return hs_fail(err, HS_ERR_DATA, "%s is %s, not a regular file or a pipe", path, refuse);
    }
    if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max_bytes) {
        if (!from_stdin)
            close(fd);
        return hs_fail(err, HS_ERR_DATA, "%s: %lld bytes is more than the input limit of %zu bytes (--max-bytes)",
                       path, (long long)st.st_size, max_bytes);
    }
    size_t capacity = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 65536, used = 0;
    unsigned char *buf = NULL;
    hs_status status = HS_OK;
    for (;;) {
        if (used == capacity || !buf) {
            size_t grown = !buf ? capacity : capacity > max_bytes / 2 ? max_bytes + 1 : capacity * 2;
            unsigned char *bigger = grown > capacity || !buf ? realloc(buf, grown) : NULL;
            if (!bigger) {
                status = hs_fail(err, HS_ERR_NOMEM, "%s: out of memory after reading %zu bytes", path, used);
                break;
            }
            buf = bigger;
            capacity = grown;
        }
        ssize_t got = read(fd, buf + used, capacity - used);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            status = hs_fail(err, HS_ERR_DATA, "error reading %s: %s", path, strerror(errno));
            break;
        }
        if (got == 0)
            break;
        used += (size_t)got;
        if (used > max_bytes) {
            status = hs_fail(err, HS_ERR_DATA, "%s: more than the input limit of %zu bytes (--max-bytes)", path,
                             max_bytes);
            break;
        }
    }
    if (!from_stdin)
        close(fd);
    if (status != HS_OK) {
        free(buf);
        return status;
    }
    *data = buf;
    *len = used;
    return HS_OK;
}

/* ---- the public readers and writers ------------------------------------------------------------------ */

static hs_status check_values(const char *name, double *values, size_t count, hs_error *err) {
    hs_error check;
    hs_status status = hs_check_series(values, count, &check);
    if (status != HS_OK)
        return hs_fail(err, status, "%s: %s", name, check.msg);
    return HS_OK;
}

/* The one decoder behind both entry points.  `owned` (may be NULL) is the malloc'ed block that holds
 * data, from the file reader: raw and .npy values are then converted in place and the block becomes the
 * result; otherwise the values get a block of their own.  Either way *out is the caller's to free. */
static hs_status decode_series(const char *name, enum series_format format, const unsigned char *data, size_t len,
                               unsigned char *owned, double **out, size_t *n, label_list *labels, hs_error *err) {
    if (len == 0) {
        free(owned); /* the read buffer of an empty input (1 byte, found by LeakSanitizer) */
        return hs_fail(err, HS_ERR_DATA, "%s: empty file", name);
    }
    double *values = NULL;
    size_t count = 0, offset = 0;
    hs_status status;
    if (format == FORMAT_CSV) {
        status = hs_csv_decode(name, data, len, &values, &count, labels, err);
    } else {
        status = format == FORMAT_NPY ? hs_npy_locate(name, data, len, &offset, &count, err)
                                      : hs_f64_locate(name, len, &offset, &count, err);
        if (status == HS_OK) {
            values = owned ? (double *)(void *)owned : malloc(count ? count * sizeof *values : 1);
            if (!values)
                return hs_fail(err, HS_ERR_NOMEM, "%s: out of memory for %zu values", name, count);
            hs_f64_decode(data + offset, count, values);
            if (owned) {
                owned = NULL; /* now the result */
                double *shrunk = realloc(values, count ? count * sizeof *values : 1);
                values = shrunk ? shrunk : values;
            }
        }
    }
    free(owned);
    if (status == HS_OK)
        status = check_values(name, values, count, err);
    if (status != HS_OK) {
        free(values);
        return status;
    }
    *out = values;
    *n = count;
    return HS_OK;
}

static hs_status parse_format(const char *format, enum series_format *f, hs_error *err) {
    if (!format_from_name(format, f))
        return hs_fail(err, HS_ERR_USAGE, "unknown series format '%s' (expected f64, csv or npy)", format);
    return HS_OK;
}

hs_status hs_parse_series(const void *bytes, size_t len, const char *format, const char *name, double **out,
                          size_t *n, hs_error *err) {
    if ((!bytes && len) || !format || !out || !n)
        return hs_fail(err, HS_ERR_USAGE, "hs_parse_series: bytes, format, out and n must not be NULL");
    *out = NULL;
    *n = 0;
    enum series_format f;
    hs_status status = parse_format(format, &f, err);
    if (status != HS_OK)
        return status;
    return decode_series(name ? name : "input", f, bytes, len, NULL, out, n, NULL, err);
}

/* hs_read_series_limited and hs_read_series_dates: labels NULL, or the date column's list. */
static hs_status read_series_labelled(const char *path, const char *format, size_t max_bytes, double **out, size_t *n,
                                      label_list *labels, hs_error *err) {
    if (!path || !out || !n)
        return hs_fail(err, HS_ERR_USAGE, "hs_read_series: path, out and n must not be NULL");
    *out = NULL;
    *n = 0;
    enum series_format f;
    hs_status status = parse_format(format ? format : hs_series_format(path), &f, err);
    if (status != HS_OK)
        return status;
    unsigned char *data;
    size_t len;
    status = read_input(path, max_bytes ? max_bytes : HS_DEFAULT_MAX_INPUT_BYTES, &data, &len, err);
    if (status != HS_OK)
        return status;
    return decode_series(strcmp(path, "-") == 0 ? "stdin" : path, f, data, len, data, out, n, labels, err);
}

hs_status hs_read_series_limited(const char *path, const char *format, size_t max_bytes, double **out, size_t *n,
                                 hs_error *err) {
    return read_series_labelled(path, format, max_bytes, out, n, NULL, err);
}

hs_status hs_read_series_dates(const char *path, const char *format, size_t max_bytes, double **out, size_t *n,
                               char **dates, hs_error *err) {
    if (!dates)
        return hs_fail(err, HS_ERR_USAGE, "hs_read_series_dates: dates must not be NULL");
    label_list labels = {0};
    hs_status status = read_series_labelled(path, format, max_bytes, out, n, &labels, err);
    *dates = status == HS_OK && labels.count && labels.count == *n ? labels.text : NULL;
    if (!*dates)
        free(labels.text);
    return status;
}

hs_status hs_read_series(const char *path, double **out, size_t *n, hs_error *err) {
    return hs_read_series_limited(path, NULL, 0, out, n, err);
}

/* A replaced file keeps its mode, owner and group (issue 20, item 12: a private 0600 series became 0644
 * through the rename, with the umask's mode and the writer's owner).  The temporary file is created 0600,
 * given the old owner where this process may (root; else the group when the writer is in it), then the
 * old mode, before a byte is written.  The group's bits are dropped when the group could not be kept
 * (rather than handed to the writer's group), and set-user-ID when the owner could not. */
static void keep_owner_and_mode(int fd, const struct stat *old) {
    mode_t mode = old->st_mode & 07777;
    if (fchown(fd, old->st_uid, old->st_gid) != 0) {
        if (fchown(fd, (uid_t)-1, old->st_gid) != 0)
            mode &= ~(mode_t)(S_IRWXG | S_ISGID);
        if (old->st_uid != geteuid())
            mode &= ~(mode_t)S_ISUID;
    }
    (void)fchmod(fd, mode);
}

/* Where a series is written (issue 10, defect 3: a failed write used to delete the output path, even a
 * symlink or a device node).  A regular file (or a new path) is written to a temporary file beside it and
 * renamed into place, so a failure leaves the old file as it was and removes only the temporary file
 * this call created; a symlink is followed to its target first.  Anything else (a device, a pipe) is
 * written in place and never removed. */
static hs_status open_output(const char *path, char **final_path, char **tmp_path, FILE **f, hs_error *err) {
    *final_path = *tmp_path = NULL;
    struct stat st;
    char *target = NULL;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        /* A symlink another user owns is not followed (issue 29 item 6: one planted in a shared folder made
         * root overwrite a 0600 file through `report --output`), as fs.protected_symlinks would not in a
         * sticky folder; the writer's own symlink is followed to its target, which is replaced. */
        if (st.st_uid != geteuid())
            return hs_fail(err, HS_ERR_DATA, "refusing to write %s: a symlink owned by uid %ld, not this process's %ld "
                           "(remove it, or write to its target)", path, (long)st.st_uid, (long)geteuid());
        target = realpath(path, NULL); /* NULL for a dangling link: then written through as a new file */
        if (target && stat(target, &st) != 0)
            st.st_mode = S_IFREG;
    }
    const char *dest = target ? target : path;
    if (stat(dest, &st) == 0 && !S_ISREG(st.st_mode)) {
        free(target);
        *f = fopen(path, "wb");
        return *f ? HS_OK : hs_fail(err, HS_ERR_DATA, "cannot open %s for writing: %s", path, strerror(errno));
    }
    int replacing = stat(dest, &st) == 0;
    if (replacing && access(dest, W_OK) != 0 && errno == EACCES) { /* as opening it for writing would say */
        free(target);
        return hs_fail(err, HS_ERR_DATA, "cannot open %s for writing: %s", path, strerror(EACCES));
    }
    size_t len = strlen(dest) + 32;
    char *tmp = malloc(len);
    if (!tmp) {
        free(target);
        return hs_fail(err, HS_ERR_NOMEM, "out of memory writing %s", path);
    }
    for (unsigned attempt = 0;; attempt++) {
        snprintf(tmp, len, "%s.tmp%ld.%u", dest, (long)getpid(), attempt);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, replacing ? 0600 : 0666);
        if (fd >= 0 && replacing)
            keep_owner_and_mode(fd, &st);
        if (fd >= 0) {
            *f = fdopen(fd, "wb");
            if (*f)
                break;
            close(fd);
            unlink(tmp);
        } else if (errno == EEXIST && attempt < 100) {
            continue;
        }
        int e = errno;
        free(tmp);
        free(target);
        return hs_fail(err, HS_ERR_DATA, "cannot create %s: %s", path, strerror(e));
    }
    *tmp_path = tmp;
    *final_path = target ? target : NULL;
    return HS_OK;
}

/* What goes into the file: 1, or 0 with errno set (a series writer, or the bytes of hs_write_file). */
typedef int (*content_writer)(FILE *, const void *user);

/* Write the content, then finish the stream (fclose for a file, fflush for stdout): 1, or 0 with the errno
 * of the first failure in *saved_errno, so that an error only the flush sees (a full disk) is not lost. */
static int write_stream(content_writer writer, const void *user, FILE *f, int (*finish)(FILE *), int *saved_errno) {
    errno = 0;
    int ok = writer(f, user);
    *saved_errno = errno;
    if (finish(f) != 0 && ok) {
        ok = 0;
        *saved_errno = errno;
    }
    return ok;
}

/* A temporary file reaches the disk before it is renamed over the old one (the checkpoint rewrite's
 * fsync, kept now that it uses this writer): a crash leaves the old file or the new, never an empty one. */
static int close_synced(FILE *f) {
    int rc = fflush(f) != 0 || fsync(fileno(f)) != 0 ? -1 : 0;
    int e = errno;
    if (fclose(f) != 0) return -1;
    errno = e;
    return rc;
}

/* The one writer of files for the user (gen's series, report pages, rewritten checkpoints; issue 29 item
 * 6).  Path "-" is stdout, as it is stdin for the readers (issue 10: `gen --output -` used to create a
 * file named "-"): flushed, not closed, so the caller's stream stays usable, and a full disk or a closed
 * pipe is still reported here rather than lost at exit.  Else open_output's temporary file and rename. */
static hs_status write_output(const char *path, content_writer writer, const void *user, hs_error *err) {
    int saved_errno;
    if (strcmp(path, "-") == 0) {
        if (!write_stream(writer, user, stdout, fflush, &saved_errno) || ferror(stdout))
            return hs_fail(err, HS_ERR_DATA, "error writing stdout: %s", strerror(saved_errno ? saved_errno : EIO));
        return HS_OK;
    }
    char *final_path, *tmp;
    FILE *f = NULL;
    hs_status status = open_output(path, &final_path, &tmp, &f, err);
    if (status != HS_OK)
        return status;
    int ok = write_stream(writer, user, f, tmp ? close_synced : fclose, &saved_errno);
    if (ok && tmp && rename(tmp, final_path ? final_path : path) != 0) {
        ok = 0;
        saved_errno = errno;
    }
    if (!ok && tmp)
        unlink(tmp); /* only what this call created */
    free(tmp);
    free(final_path);
    if (!ok)
        return hs_fail(err, HS_ERR_DATA, "error writing %s: %s", path, strerror(saved_errno ? saved_errno : EIO));
    return HS_OK;
}

typedef struct {
    int (*write)(FILE *, const double *, size_t);
    const double *x;
    size_t n;
} series_content;

static int write_series_content(FILE *f, const void *user) {
    const series_content *c = user;
    return c->write(f, c->x, c->n);
}

typedef struct {
    const void *bytes;
    size_t n;
} bytes_content;

static int write_bytes_content(FILE *f, const void *user) {
    const bytes_content *c = user;
    return c->n == 0 || fwrite(c->bytes, 1, c->n, f) == c->n;
}

hs_status hs_write_file(const char *path, const void *bytes, size_t n, hs_error *err) {
    if (!path || (!bytes && n > 0))
        return hs_fail(err, HS_ERR_USAGE, "hs_write_file: path and bytes must not be NULL");
    bytes_content c = {bytes, n};
    return write_output(path, write_bytes_content, &c, err);
}

hs_status hs_write_series(const char *path, const char *format, const double *x, size_t n, hs_error *err) {
    if (!path || !format || (!x && n > 0))
        return hs_fail(err, HS_ERR_USAGE, "hs_write_series: path, format and x must not be NULL");
    enum series_format fmt;
    hs_status status = parse_format(format, &fmt, err);
    if (status != HS_OK)
        return status;
    series_content c = {fmt == FORMAT_CSV ? hs_csv_write : fmt == FORMAT_NPY ? hs_npy_write : hs_f64_write, x, n};
    return write_output(path, write_series_content, &c, err);
}
