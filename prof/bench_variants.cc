// bench_variants — Google Benchmark over THE registry (src/variants/registry.def).
//
// Benchmarks are generated at run time from hs_variants(): a variant added to the registry is measured
// without touching this file.  Three series (names are "<series>/<variant>/<isa>/threads:<t>[/<x>:<n>]"):
//
//   default/V/I/threads:T           the study's default run: seed 42, 150,000 bars, grid 6:200:80;
//                                   every variant x every ISA it is built for that this CPU runs x
//                                   threads (1; and 2 and all cores for OpenMP-driver variants)
//   bars/V/I/threads:T/bars:N       N = 10^4, 10^5, 10^6 at grid 6:200:80
//   combos/V/I/threads:T/combos:C   grid 6:200:C, C = 1, 10, 80, 320, at 150,000 bars
//   adversarial/S/V/I/threads:1     the adversarial series S of prof/adversarial.h (flat, out-of-range,
//                                   spike, ulp-alternating, vol-0.3) at 30,000 bars, grid 6:200:80: the
//                                   inputs that defeat the sign certification (issue 21; the bounded
//                                   ratios are asserted by tests/test_worst_case.c)
//
// The scaling series run serial variants on 1 thread and OpenMP variants on all cores.
//
// Counters (all "per second" counters are per second of wall time, UseRealTime):
//   combos/s       combos swept per second
//   bar-combos/s   bars x combos per second
//   GFLOP/s        nominal FLOP per second / 1e9, FLOP from hs_flops() below
//   FLOP           the nominal FLOP count of one sweep (constant)
//   bars, combos, threads, tier   the configuration, for tools that read the JSON
//
// The nominal FLOP count of one combo with windows w0..w5 over n bars (prof/README.md):
//
//   FLOP = sum over the 7 WMA passes, w in (w0, w1, w2, w3, w4, w5, w5), of 2 * w * (n - w + 1)
//          [each of the n - w + 1 outputs is w multiplies and w adds]
//        + 2 * n   [HMA combination 2*a - b: one multiply, one subtract per bar]
//        + 3 * n   [HMA3 combination (3*a - b) - c: one multiply, two subtracts per bar]
//
// Not counted: the one division per WMA output, d = hma3 - hma, and the book-keeping (together < 1%
// of the total for the default grid).  It is an operation count of the direct-form algorithm, the same
// for every variant, so GFLOP/s is proportional to 1/time; a variant that does less arithmetic
// (running-sum WMA, skipping NaN warm-up bars) gets an "effective" figure.
//
// Own flags (parsed before Google Benchmark's; --benchmark_filter=REGEX also selects a subset):
//   --hs_series=default,bars,combos,adversarial   which series (default: all four)
//   --hs_adversarial_bars=30000          bars of the adversarial series
//   --hs_variants=a,b,...                only these registry names (default: all)
//   --hs_isas=scalar,avx2,...            only these ISAs (default: all built and supported)
//   --hs_threads=1,2                     thread counts for OpenMP variants in the default series
//                                        (default: 1, 2, all cores; duplicates dropped)
//   --hs_bars=10000,100000,1000000       the bars series
//   --hs_combos=1,10,80,320              the combos series
//   --hs_default_bars=150000 --hs_default_combos=80    the default run (and the combos series' bars)
//   --hs_repetitions=3                   repetitions of each default-series benchmark
//   --hs_scaling_repetitions=1           repetitions of each scaling benchmark
//   --hs_min_time=0.2                    seconds per repetition (one iteration if the first is longer;
//                                        0 = exactly one iteration)
//
// Output: the usual console table; --benchmark_out=reports/variants/bench.json
// --benchmark_out_format=json keeps the JSON (the `bench_variants_json` target does exactly that).

#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

extern "C" {
#include "hmasweep.h"  // the public API only: this benchmark links libhmasweep.so (issue 8 §4)
#include "adversarial.h"
}

namespace {

struct Options {
    std::set<std::string> series{"default", "bars", "combos", "adversarial"};
    long adversarial_bars = 30000;
    std::set<std::string> variants;  // empty = all
    std::set<std::string> isas;      // empty = all
    std::vector<int> threads;        // empty = 1, 2, all
    std::vector<long> bars{10000, 100000, 1000000};
    std::vector<long> combos{1, 10, 80, 320};
    long default_bars = HS_DEFAULT_BARS;
    long default_combos = HS_DEFAULT_GRID_COUNT;
    int repetitions = 3;
    int scaling_repetitions = 1;
    double min_time = 0.2;
};

std::vector<std::string> split(const std::string &s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty()) out.push_back(item);
    return out;
}

[[noreturn]] void usage_error(const std::string &msg) {
    std::fprintf(stderr, "bench_variants: %s (see the header of prof/bench_variants.cc)\n", msg.c_str());
    std::exit(2);
}

long to_long(const std::string &flag, const std::string &v, long lo) {
    char *end = nullptr;
    long x = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end || x < lo) usage_error(flag + " needs integers >= " + std::to_string(lo) + ", got '" + v + "'");
    return x;
}

std::vector<long> to_longs(const std::string &flag, const std::string &v, long lo) {
    std::vector<long> out;
    for (const auto &s : split(v)) out.push_back(to_long(flag, s, lo));
    if (out.empty()) usage_error(flag + " needs at least one value");
    return out;
}

// The registry as the library describes it (hs_variant_describe: the same ISA choice as hs_sweep).
const std::vector<hs_variant_info> &registry() {
    static std::vector<hs_variant_info> all;
    if (!all.empty()) return all;
    for (size_t k = 0; k < hs_variant_count(); k++) {
        hs_variant_info v;
        hs_error err;
        if (hs_variant_describe_sized(k, &v, sizeof v, &err) != HS_OK) usage_error(std::string("variants: ") + err.msg);
        all.push_back(v);
    }
    return all;
}

// Take our --hs_* flags out of argv (Google Benchmark rejects flags it does not know).
Options parse_own_flags(int *argc, char **argv) {
    Options o;
    int w = 1;
    for (int i = 1; i < *argc; i++) {
        std::string a = argv[i];
        if (a.rfind("--hs_", 0) != 0) {
            argv[w++] = argv[i];
            continue;
        }
        size_t eq = a.find('=');
        if (eq == std::string::npos) usage_error("flag '" + a + "' needs =VALUE");
        std::string k = a.substr(0, eq), v = a.substr(eq + 1);
        if (k == "--hs_series") {
            o.series.clear();
            for (const auto &s : split(v)) {
                if (s != "default" && s != "bars" && s != "combos" && s != "adversarial")
                    usage_error("--hs_series: unknown series '" + s + "'");
                o.series.insert(s);
            }
        } else if (k == "--hs_variants") {
            for (const auto &s : split(v)) o.variants.insert(s);
        } else if (k == "--hs_isas") {
            for (const auto &s : split(v)) o.isas.insert(s);
        } else if (k == "--hs_threads") {
            for (long t : to_longs(k, v, 1)) o.threads.push_back((int)t);
        } else if (k == "--hs_bars") {
            o.bars = to_longs(k, v, 1);
        } else if (k == "--hs_combos") {
            o.combos = to_longs(k, v, 1);
        } else if (k == "--hs_default_bars") {
            o.default_bars = to_long(k, v, 1);
        } else if (k == "--hs_adversarial_bars") {
            o.adversarial_bars = to_long(k, v, 2);
        } else if (k == "--hs_default_combos") {
            o.default_combos = to_long(k, v, 1);
        } else if (k == "--hs_repetitions") {
            o.repetitions = (int)to_long(k, v, 1);
        } else if (k == "--hs_scaling_repetitions") {
            o.scaling_repetitions = (int)to_long(k, v, 1);
        } else if (k == "--hs_min_time") {
            char *end = nullptr;
            o.min_time = std::strtod(v.c_str(), &end);
            if (v.empty() || *end || o.min_time < 0) usage_error("--hs_min_time needs seconds >= 0");
        } else {
            usage_error("unknown flag '" + k + "'");
        }
    }
    *argc = w;
    argv[w] = nullptr;
    std::set<std::string> known_variants, built_isas;
    for (const hs_variant_info &v : registry()) {
        known_variants.insert(v.name);
        for (const auto &isa : split(v.isas_built)) built_isas.insert(isa);
    }
    for (const auto &name : o.variants)
        if (!known_variants.count(name)) usage_error("--hs_variants: '" + name + "' is not in the registry");
    for (const auto &name : o.isas)
        if (!built_isas.count(name)) usage_error("--hs_isas: '" + name + "' is not built into this library");
    return o;
}

// ---- the data: one close series per bar count, one window set per grid size, made once ----------------

// kind -1: the study's walk; otherwise one of prof/adversarial.h.
const std::vector<double> &series(long bars, int kind) {
    static std::map<std::pair<long, int>, std::vector<double>> cache;
    auto it = cache.find({bars, kind});
    if (it != cache.end()) return it->second;
    std::vector<double> close((size_t)bars);
    hs_error err;
    if (kind >= 0)
        adv_series(kind, close.data(), (size_t)bars);
    else if (hs_make_close(HS_DEFAULT_SEED, (size_t)bars, HS_DEFAULT_VOL, HS_DEFAULT_START, close.data(), &err) != HS_OK)
        usage_error(std::string("series: ") + err.msg);
    return cache.emplace(std::make_pair(bars, kind), std::move(close)).first->second;
}

const std::vector<hs_windows> &grid(long count) {
    static std::map<long, std::vector<hs_windows>> cache;
    auto it = cache.find(count);
    if (it != cache.end()) return it->second;
    std::vector<int64_t> lengths((size_t)count);
    std::vector<hs_windows> windows((size_t)count);
    hs_error err;
    if (hs_grid(HS_DEFAULT_GRID_LO, HS_DEFAULT_GRID_HI, (size_t)count, lengths.data(), &err) != HS_OK)
        usage_error(std::string("grid: ") + err.msg);
    for (size_t c = 0; c < (size_t)count; c++)
        if (hs_windows_from_length(lengths[c], &windows[c], &err) != HS_OK) usage_error(std::string("grid: ") + err.msg);
    return cache.emplace(count, std::move(windows)).first->second;
}

// The nominal FLOP count of one sweep (formula in the header comment and prof/README.md).
double hs_flops(const std::vector<hs_windows> &combos, long bars) {
    double total = 0.0;
    const double n = (double)bars;
    for (const auto &c : combos) {
        const int64_t passes[7] = {c.w[0], c.w[1], c.w[2], c.w[3], c.w[4], c.w[5], c.w[5]};
        for (int64_t w : passes)
            if (w <= bars) total += 2.0 * (double)w * (n - (double)w + 1.0);
        total += 5.0 * n;
    }
    return total;
}

// ---- one benchmark -----------------------------------------------------------------------------------

struct Case {
    const hs_variant_info *variant;
    std::string isa;
    int threads;  // what hs_sweep_options.threads gets (serial variants ignore it)
    long bars, combos;
    int kind = -1;  // the series: -1 the study's walk, else prof/adversarial.h's
};

void run_case(benchmark::State &state, Case c) {
    const std::vector<double> &close = series(c.bars, c.kind);
    const std::vector<hs_windows> &combos = grid(c.combos);
    std::vector<hs_result> out(combos.size());
    hs_error err{};
    if (hs_check_windows(combos.data(), combos.size(), close.size(), &err) != HS_OK) {
        state.SkipWithError(err.msg);
        return;
    }
    // hs_sweep also re-validates the series (one O(bars) pass) per call: under 1% of one sweep.
    hs_sweep_report ran{};
    hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
    opt.variant = c.variant->name;
    opt.isa = c.isa.c_str();
    opt.threads = c.threads;
    opt.report = &ran;
    for (auto _ : state) {
        hs_status st = hs_sweep(close.data(), close.size(), combos.data(), combos.size(), out.data(), &opt, &err);
        if (st != HS_OK) {
            state.SkipWithError(err.msg);
            break;
        }
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    const double nc = (double)combos.size(), nb = (double)close.size();
    using C = benchmark::Counter;
    state.counters["combos/s"] = C(nc, C::kIsIterationInvariantRate);
    state.counters["bar-combos/s"] = C(nc * nb, C::kIsIterationInvariantRate);
    state.counters["GFLOP/s"] = C(hs_flops(combos, c.bars) / 1e9, C::kIsIterationInvariantRate);
    state.counters["FLOP"] = C(hs_flops(combos, c.bars));
    state.counters["bars"] = C(nb);
    state.counters["combos"] = C(nc);
    state.counters["threads"] = C(ran.threads);
    state.counters["tier"] = C(c.variant->tier);
}

std::string case_name(const std::string &series_name, const Case &c, const char *extra_key, long extra) {
    std::string name = series_name + "/" + c.variant->name + "/" + c.isa + "/threads:" +
                       std::to_string(c.variant->threaded ? c.threads : 1);
    if (extra_key) name += std::string("/") + extra_key + ":" + std::to_string(extra);
    return name;
}

void add(const std::string &name, const Case &c, const Options &o, int repetitions) {
    benchmark::internal::Benchmark *b = benchmark::RegisterBenchmark(name.c_str(), run_case, c);
    b->UseRealTime()->Unit(benchmark::kMillisecond)->Repetitions(repetitions);
    if (o.min_time > 0) b->MinTime(o.min_time);
    else b->Iterations(1);  // --hs_min_time=0: exactly one sweep per repetition
}

int register_all(const Options &o) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1) cores = 1;
    std::vector<int> omp_threads = o.threads;
    if (omp_threads.empty()) omp_threads = {1, 2, (int)cores};
    std::set<int> seen;
    std::vector<int> uniq;
    for (int t : omp_threads)
        if (seen.insert(t).second) uniq.push_back(t);
    omp_threads = uniq;

    const std::vector<hs_variant_info> &v = registry();
    int registered = 0;
    for (size_t k = 0; k < v.size(); k++) {
        if (!o.variants.empty() && !o.variants.count(v[k].name)) continue;
        for (const std::string &isa : split(v[k].isas_runnable)) {
            if (!o.isas.empty() && !o.isas.count(isa)) continue;
            const bool omp = v[k].threaded;
            if (o.series.count("default")) {
                for (int t : omp ? omp_threads : std::vector<int>{1}) {
                    Case c{&v[k], isa, t, o.default_bars, o.default_combos};
                    add(case_name("default", c, nullptr, 0), c, o, o.repetitions);
                    registered++;
                }
            }
            const int scaling_threads = omp ? (int)cores : 1;
            if (o.series.count("bars"))
                for (long b : o.bars) {
                    Case c{&v[k], isa, scaling_threads, b, o.default_combos};
                    add(case_name("bars", c, "bars", b), c, o, o.scaling_repetitions);
                    registered++;
                }
            if (o.series.count("adversarial"))
                for (int kind = 0; kind < ADV_COUNT; kind++) {
                    Case c{&v[k], isa, 1, o.adversarial_bars, o.default_combos, kind};
                    add(case_name(std::string("adversarial/") + adv_names[kind], c, nullptr, 0), c, o,
                        o.scaling_repetitions);
                    registered++;
                }
            if (o.series.count("combos"))
                for (long m : o.combos) {
                    Case c{&v[k], isa, scaling_threads, o.default_bars, m};
                    add(case_name("combos", c, "combos", m), c, o, o.scaling_repetitions);
                    registered++;
                }
        }
    }
    return registered;
}

}  // namespace

int main(int argc, char **argv) {
    Options o = parse_own_flags(&argc, argv);
    if (register_all(o) == 0) usage_error("no benchmark matches the --hs_* selection");
    benchmark::AddCustomContext("hs_seed", std::to_string(HS_DEFAULT_SEED));
    benchmark::AddCustomContext("hs_grid", "6:200:count (numpy linspace, truncated)");
    benchmark::AddCustomContext("hs_flop_formula",
                                "per combo: sum over WMA windows (w0,w1,w2,w3,w4,w5,w5) of 2*w*(n-w+1) + 5*n");
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
