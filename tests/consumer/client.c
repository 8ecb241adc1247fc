/* A program of another project that calls an installed hmasweep's engine through its C client: only
 * <hmasweep_client.h> (which includes <hmasweep.h>) and the library.  usage: client URL
 * It asks the server at URL (`hmasweep serve`) for HELLO, sweeps L = 6 and 200 over the study's default
 * series, and checks the reply against the same sweep in process (bit for bit) and the study's
 * fingerprint (57,029 trades for L = 6).  Exit 0 when all agree. */
#include <hmasweep_client.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: client URL\n");
        return 2;
    }
    size_t n = HS_DEFAULT_BARS;
    double *close = malloc(n * sizeof *close);
    hs_windows w[2];
    hs_result local[2], remote[2];
    hs_error err;
    hs_client *c = NULL;
    char variants[256];
    uint32_t version = 0, max_frame = 0;
    uint64_t max_work = 0;
    if (!close || hs_make_close(HS_DEFAULT_SEED, n, HS_DEFAULT_VOL, HS_DEFAULT_START, close, &err) != HS_OK ||
        hs_windows_from_length(6, &w[0], &err) != HS_OK || hs_windows_from_length(200, &w[1], &err) != HS_OK ||
        hs_sweep(close, n, w, 2, local, NULL, &err) != HS_OK) {
        fprintf(stderr, "client: %s\n", close ? err.msg : "out of memory");
        return 1;
    }
    if (hs_client_connect(argv[1], 10000, &c, &err) != HS_OK ||
        hs_client_hello(c, &version, variants, sizeof variants, &max_frame, &max_work, &err) != HS_OK ||
        hs_client_sweep_opt(c, close, n, w, 2, remote, NULL, &err) != HS_OK) {
        fprintf(stderr, "client: %s (last error %d)\n", err.msg, c ? hs_client_last_error(c) : 0);
        hs_client_close(c);
        return 1;
    }
    hs_client_close(c);
    printf("client: server protocol %u; L=6 %lld trades, PnL %.17g; L=200 %lld trades\n", version,
           (long long)remote[0].trades, remote[0].pnl, (long long)remote[1].trades);
    int ok = version > 0 && remote[0].trades == HS_STUDY_TRADES && remote[0].pnl == HS_STUDY_PNL;
    for (int i = 0; i < 2; i++) ok = ok && remote[i].trades == local[i].trades && remote[i].pnl == local[i].pnl;
    puts(ok ? "client: served = in process, fingerprint MATCH" : "client: MISMATCH");
    free(close);
    return ok ? 0 : 1;
}
