/* cli_options.c: the command line every program of fiberlab reads: one getopt_long
 * table of the options they share and the few each adds, their values checked, the
 * one file argument, the default output prefix, the version and help lines. */
#include <config.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fl_defs.h"

#define MAX_BATCH 1000000

static int parse_count(const char *s, long lo, long hi, long *out)
{
  char *end;
  long v = strtol(s, &end, 10);
  if (!*s || *end || v < lo || v > hi)
    return 0;
  *out = v;
  return 1;
}

/* The index of arg among names (NULL-terminated), or -1 after the message naming
 * option and what it allows. */
static int choice(const char *prog, const char *option, const char *arg, const char *const *names)
{
  char allowed[128] = "";
  for (int i = 0; names[i]; i++) {
    if (strcmp(arg, names[i]) == 0)
      return i;
    size_t n = strlen(allowed);
    snprintf(allowed + n, sizeof allowed - n, "%s%s", i ? " | " : "", names[i]);
  }
  fprintf(stderr, "%s: %s '%s': allowed: %s\n", prog, option, arg, allowed);
  return -1;
}

int fl_cli_parse_device(const char *prog, const char *arg, int *device)
{
  static const char *const names[] = {"cpu", "gpu", "auto", NULL};
  if ((*device = choice(prog, "--device", arg, names)) < 0)
    return 2;
#ifndef HAVE_CUDA
  if (*device == 1) {
    fprintf(stderr, "%s: --device gpu: this fiberlab was built without CUDA; allowed: cpu | auto\n", prog);
    return 2;
  }
#endif
  return 0;
}

int fl_cli_parse_solver(const char *prog, const char *arg, enum fl_solver *solver)
{
  static const char *const names[] = {"auto", "explicit", "static", NULL};
  int k = choice(prog, "--solver", arg, names);
  if (k < 0)
    return 2;
  *solver = (enum fl_solver)(FL_SOLVER_AUTO + k);
  return 0;
}

int fl_cli_check_solver(const char *prog, int device, enum fl_solver solver, int solver_option, const char *where)
{
  if (device != 1 || solver != FL_SOLVER_STATIC)
    return 0;
  if (solver_option)
    fprintf(stderr, "%s: --device gpu with --solver static: the static solver runs on the CPU only; allowed: "
                    "--solver explicit | auto with --device gpu, or --device cpu | auto with --solver static\n",
            prog);
  else
    fprintf(stderr, "%s: --device gpu with simulation.solver static (%s): the static solver runs on the CPU only; "
                    "allowed: --solver explicit | auto with --device gpu, or --device cpu | auto\n",
            prog, where ? where : "the experiment");
  return 2;
}

int fl_cli_parse_plot(const char *prog, const char *arg, enum fl_plot *plot)
{
  static const char *const names[] = {"png", "svg", "none", NULL}; /* in the order of enum fl_plot */
  int k = choice(prog, "--plot", arg, names);
  if (k < 0)
    return 2;
  *plot = (enum fl_plot)k;
  return 0;
}

void fl_cli_version(const char *prog)
{
  printf("%s (fiberlab) %s\nCUDA engine: %s\n", prog, PACKAGE_VERSION,
#ifdef HAVE_CUDA
         "built in"
#else
         "not built in"
#endif
  );
  printf("Copyright (C) 2026 the fiberlab developers.\n"
         "License GPLv3+: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.\n"
         "This is free software: you are free to change and redistribute it.\n"
         "There is NO WARRANTY, to the extent permitted by law.\n");
}

void fl_cli_help_footer(FILE *f) { fprintf(f, "\nReport bugs to: %s\n", PACKAGE_BUGREPORT); }

int fl_cli_bad_option(const char *prog, char **argv, int optind_now, int optopt_now, int missing_value)
{
  char name[64];
  const char *a = argv[optind_now - 1];
  if (strncmp(a, "--", 2) != 0 && optopt_now > 0 && optopt_now < 128) /* short, perhaps in a cluster */
    snprintf(name, sizeof name, "-%c", optopt_now);
  else {
    size_t n = strcspn(a, "=");
    snprintf(name, sizeof name, "%.*s", (int)(n < 60 ? n : 60), a);
  }
  fprintf(stderr, "%s: %s '%s'%s\nTry '%s --help'.\n", prog, missing_value ? "option" : "unknown option", name,
          missing_value ? " needs a value" : "", prog);
  return 2;
}

void fl_cli_passive_threads(int threads, char **argv)
{
#ifdef _OPENMP
  /* OpenMP's default is to spin between the parallel regions of each step, which on a
   * busy machine costs far more than the work; libgomp reads its policy when it loads,
   * so ask for passive waiting by starting again with it set.  Nothing short of that
   * reaches it: no OpenMP routine sets the policy, and a variable set before main (a
   * .preinit_array function) is lost, since glibc's start-up, which runs before
   * libgomp's, sets environ afresh. */
  if (threads > 1 && !getenv("OMP_WAIT_POLICY")) {
    setenv("OMP_WAIT_POLICY", "passive", 1);
    execv("/proc/self/exe", argv);
  }
#else
  (void)threads;
  (void)argv;
#endif
}

void fl_cli_default_prefix(const char *file, const char *suffix, char *buf, size_t len)
{
  const char *b = strrchr(file, '/');
  b = b ? b + 1 : file;
  snprintf(buf, len, "%s", b);
  size_t n = strlen(buf);
  if (n > 5 && strcmp(buf + n - 5, ".yaml") == 0)
    buf[n - 5] = '\0';
  else if (n > 4 && strcmp(buf + n - 4, ".yml") == 0)
    buf[n - 4] = '\0';
  n = strlen(buf);
  snprintf(buf + n, len - n, "%s", suffix);
}

/* One option's value into o; -1 to go on, else the exit status. */
static int take_option(int c, const char *arg, fl_cli_options *o)
{
  const char *prog = o->prog;
  switch (c) {
  case 'o':
    o->prefix = arg;
    return -1;
  case 's':
    if (o->nsets == FL_CLI_MAX_SETS) {
      fprintf(stderr, "%s: more than %d --set options; allowed: at most %d\n", prog, FL_CLI_MAX_SETS,
              FL_CLI_MAX_SETS);
      return 2;
    }
    o->sets[o->nsets++] = arg;
    return -1;
  case 'b':
    if (!parse_count(arg, 1, MAX_BATCH, &o->batch)) {
      fprintf(stderr, "%s: --batch '%s': allowed: an integer in [1, %d]\n", prog, arg, MAX_BATCH);
      return 2;
    }
    return -1;
  case 'd':
    o->device_arg = arg; /* checked once --solver is known too */
    return -1;
  case 'v':
    if (fl_cli_parse_solver(prog, arg, &o->solver))
      return 2;
    o->solver_given = 1;
    return -1;
  case 'p':
    o->plot_given = 1;
    return fl_cli_parse_plot(prog, arg, &o->plot) ? 2 : -1;
  case 'S': {
    char *end;
    if (!*arg || *arg == '-' || (o->seed = strtoul(arg, &end, 10), *end)) {
      fprintf(stderr, "%s: --seed '%s': allowed: an integer >= 0\n", prog, arg);
      return 2;
    }
    o->seed_text = arg;
    o->seed_given = 1;
    return -1;
  }
  case 'T':
    if (!parse_count(arg, 1, 1024, &o->threads)) {
      fprintf(stderr, "%s: --threads '%s': allowed: an integer in [1, 1024]\n", prog, arg);
      return 2;
    }
    return -1;
  case 'E':
    if (strcmp(arg, "lammps") != 0) {
      fprintf(stderr, "%s: --export '%s': allowed: lammps\n", prog, arg);
      return 2;
    }
    o->export_lammps = 1;
    return -1;
  case 'q':
    o->quiet = 1;
    return -1;
  case 'P':
    o->force_progress = 1;
    return -1;
  case 'R':
    o->resume = 1;
    return -1;
  default: { /* 'A' */
    long v;
    if (!parse_count(arg, 1, 1000000, &v)) {
      fprintf(stderr, "%s: --stop-after '%s': allowed: an integer in [1, 1000000]\n", prog, arg);
      return 2;
    }
    o->stop_after = (int)v;
    return -1;
  }
  }
}

int fl_cli_parse(int argc, char **argv, unsigned extra, const char *file_kind, fl_cli_usage usage, const void *ctx,
                 fl_cli_options *o)
{
  static const struct option all[] = {{"output", required_argument, NULL, 'o'},
                                      {"set", required_argument, NULL, 's'},
                                      {"batch", required_argument, NULL, 'b'},
                                      {"device", required_argument, NULL, 'd'},
                                      {"solver", required_argument, NULL, 'v'},
                                      {"plot", required_argument, NULL, 'p'},
                                      {"seed", required_argument, NULL, 'S'},
                                      {"threads", required_argument, NULL, 'T'},
                                      {"export", required_argument, NULL, 'E'},
                                      {"quiet", no_argument, NULL, 'q'},
                                      {"progress", no_argument, NULL, 'P'},
                                      {"resume", no_argument, NULL, 'R'},
                                      {"stop-after", required_argument, NULL, 'A'},
                                      {"help", no_argument, NULL, 'h'},
                                      {"version", no_argument, NULL, 'V'}};
  /* the table of this program: the shared options and its own */
  struct option opts[sizeof all / sizeof all[0] + 1];
  int n = 0;
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    int c = all[i].val;
    if ((c == 'b' && !(extra & FL_CLI_BATCH)) || (c == 'E' && !(extra & FL_CLI_EXPORT)) ||
        ((c == 'R' || c == 'A') && !(extra & FL_CLI_RESUME)))
      continue;
    opts[n++] = all[i];
  }
  memset(&opts[n], 0, sizeof opts[n]);
  memset(o, 0, sizeof *o);
  o->prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  o->batch = 1;
  o->threads = 1;
  o->solver = FL_SOLVER_AUTO;
  o->plot = FL_PLOT_PNG;
  o->seed = 1;
  int c, st;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":o:s:qhV", opts, NULL)) != -1) {
    if (c == 'h') {
      usage(stdout, o->prog, ctx);
      return 0;
    }
    if (c == 'V') {
      fl_cli_version(o->prog);
      return 0;
    }
    if (c == ':' || c == '?')
      return fl_cli_bad_option(o->prog, argv, optind, optopt, c == ':');
    if ((st = take_option(c, optarg, o)) >= 0)
      return st;
  }
  if (o->device_arg && strcmp(o->device_arg, "gpu") == 0 &&
      fl_cli_check_solver(o->prog, 1, o->solver, o->solver_given, NULL))
    return 2;
  if (o->device_arg && fl_cli_parse_device(o->prog, o->device_arg, &o->device))
    return 2;
  fl_cli_passive_threads((int)o->threads, argv);
  if (optind != argc - 1) {
    if (optind >= argc)
      fprintf(stderr, "%s: missing the %s FILE.yaml\nTry '%s --help'.\n", o->prog, file_kind, o->prog);
    else
      fprintf(stderr, "%s: more than one %s file given\nTry '%s --help'.\n", o->prog, file_kind, o->prog);
    return 2;
  }
  o->file = argv[optind];
  /* the command line, for the outputs' first lines */
  size_t used = 0;
  for (int i = 0; i < argc && used < sizeof o->cmd - 1; i++)
    used += (size_t)snprintf(o->cmd + used, sizeof o->cmd - used, "%s%s", i ? " " : "", argv[i]);
  return -1;
}
