/* `hmasweep report`: the sweep's HTML page.  The page is made by the Python package (hmasweep.report,
 * python/hmasweep/report.py) with Plotly, a Python library; a C copy of it would be a second page to keep
 * in step, so this command only runs `python -m hmasweep report` with its arguments (docs/python.md,
 * "The page").  The Python it runs is $HMASWEEP_PYTHON, else python3 on PATH.  When this executable
 * sits in a build tree (<build>/hmasweep next to <build>/python/hmasweep, which the build assembles),
 * that package goes first on PYTHONPATH, so a build's CLI runs its own package; otherwise the installed
 * one (pip install '.[plot]').  A missing Python, package or Plotly is an error that says which. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "options.h" /* the exit statuses */

/* Run by the Python: import the package (naming what is missing, and which Python looked), then its
 * `report` entry point with our arguments (sys.argv[1:]); its exit status is ours. */
static const char bootstrap[] =
    "import sys\n"
    "try:\n"
    "    from hmasweep.__main__ import main\n"
    "except ImportError as e:\n"
    "    sys.stderr.write('hmasweep report: the Python package hmasweep cannot be imported by %s (%s); '\n"
    "                     'install it (pip install \".[plot]\" in the repository) or set HMASWEEP_PYTHON to a '\n"
    "                     'Python that has it\\n' % (sys.executable, e))\n"
    "    sys.exit(1)\n"
    "sys.exit(main(['report'] + sys.argv[1:]))\n";

/* <dir of this executable>/python when it holds the build tree's package, else NULL. */
static const char *build_tree_package_dir(char *buf, size_t cap) {
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) return NULL;
    *slash = '\0';
    char probe[PATH_MAX + 64];
    snprintf(probe, sizeof probe, "%s/python/hmasweep/__main__.py", exe);
    if (access(probe, R_OK) != 0) return NULL;
    if ((size_t)snprintf(buf, cap, "%s/python", exe) >= cap) return NULL;
    return buf;
}

static int prepend_pythonpath(const char *dir) {
    const char *old = getenv("PYTHONPATH");
    size_t len = strlen(dir) + (old ? strlen(old) + 1 : 0) + 1;
    char *value = malloc(len);
    if (!value) return -1;
    snprintf(value, len, "%s%s%s", dir, old && *old ? ":" : "", old ? old : "");
    int rc = setenv("PYTHONPATH", value, 1);
    free(value);
    return rc;
}

int hs_report_cli(int argc, char **argv) {
    const char *python = getenv("HMASWEEP_PYTHON");
    if (!python || !*python) python = "python3";
    char pkg[PATH_MAX];
    if (build_tree_package_dir(pkg, sizeof pkg) && prepend_pythonpath(pkg) != 0) {
        fprintf(stderr, "hmasweep report: cannot set PYTHONPATH: %s\n", strerror(errno));
        return EXIT_DATA;
    }
    char **args = calloc((size_t)argc + 4, sizeof *args);
    if (!args) {
        fputs("hmasweep report: out of memory\n", stderr);
        return EXIT_DATA;
    }
    args[0] = (char *)python;
    args[1] = "-c";
    args[2] = (char *)bootstrap;
    for (int i = 0; i < argc; i++) args[3 + i] = argv[i];
    fflush(NULL);
    execvp(python, args);
    fprintf(stderr,
            "hmasweep report: cannot run %s (%s).  `hmasweep report` is the Python package's page "
            "(hmasweep.report): it needs Python 3 with hmasweep and plotly (pip install '.[plot]'); set "
            "HMASWEEP_PYTHON to the Python to use.\n",
            python, strerror(errno));
    free(args);
    return EXIT_DATA;
}
