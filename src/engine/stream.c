/* The helpers every transport's user shares (stream.h): whole reads and writes under one deadline, and
 * the clock they use.  They know only the hs_stream interface, so the shared-memory transport and the
 * fd transports run the same loop. */
#define _GNU_SOURCE
#include <time.h>

#include "stream.h"

long long hs_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The wait for one read or write: what is left of the deadline, in slices of HS_STREAM_POLL_MS when
 * the stream can be stopped, so that stop() is asked that often. */
static int remaining(const hs_stream *s, long long deadline_ms) {
    long long left = deadline_ms < 0 ? -1 : deadline_ms - hs_now_ms();
    if (deadline_ms >= 0 && left < 0) left = 0;
    if (s->stop && (left < 0 || left > HS_STREAM_POLL_MS)) left = HS_STREAM_POLL_MS;
    return left > 1000000000 ? 1000000000 : (int)left;
}

/* After a wait that moved nothing: HS_STREAM_TIMEOUT when the deadline has passed, HS_STREAM_CANCELLED
 * when stop() says so, else 0 (wait again). */
static int waited(hs_stream *s, long long deadline_ms) {
    if (s->stop && s->stop(s->stop_user)) return (int)HS_STREAM_CANCELLED;
    if (deadline_ms >= 0 && hs_now_ms() >= deadline_ms) return (int)HS_STREAM_TIMEOUT;
    return 0;
}

int hs_stream_read_full(hs_stream *s, void *buf, size_t n, long long deadline_ms, size_t *got) {
    size_t done = 0;
    int rc = 0;
    while (done < n) {
        ssize_t r = s->read(s->ctx, (char *)buf + done, n - done, remaining(s, deadline_ms));
        if (r > 0) {
            done += (size_t)r;
        } else if (r == 0) {
            rc = 1;
            break;
        } else if (r == HS_STREAM_TIMEOUT) {
            if ((rc = waited(s, deadline_ms))) break;
        } else {
            rc = (int)HS_STREAM_ERROR;
            break;
        }
    }
    if (got) *got = done;
    return rc;
}

int hs_stream_write_full(hs_stream *s, struct iovec *iov, int iovcnt, long long deadline_ms) {
    while (iovcnt > 0) {
        if (iov->iov_len == 0) {
            iov++, iovcnt--;
            continue;
        }
        ssize_t r = s->writev(s->ctx, iov, iovcnt, remaining(s, deadline_ms));
        if (r == HS_STREAM_TIMEOUT) {
            int rc = waited(s, deadline_ms);
            if (rc) return rc;
            continue;
        }
        if (r <= 0) return (int)HS_STREAM_ERROR;
        size_t moved = (size_t)r;
        while (iovcnt > 0 && moved >= iov->iov_len) moved -= iov->iov_len, iov++, iovcnt--;
        if (iovcnt > 0) iov->iov_base = (char *)iov->iov_base + moved, iov->iov_len -= moved;
    }
    return 0;
}
