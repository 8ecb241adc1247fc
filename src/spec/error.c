#include "error.h"

#include <stdarg.h>
#include <stdio.h>

hs_status hs_fail(hs_error *err, hs_status status, const char *fmt, ...) {
    if (err) {
        va_list args;
        va_start(args, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, args);
        va_end(args);
    }
    return status;
}
