/* yaml_parse: whether a file is exactly one well-formed YAML document whose root is a
 * mapping, read with libyaml's parser; and the value of one key in it.
 *
 *   tests/yaml_parse [-t] FILE [KEY]
 *
 * FILE "-" is the standard input.  KEY is a dotted path: mapping keys, which may hold dots
 * themselves (parameters.bond.damping finds the key "bond.damping" of "parameters"), and
 * sequence indices from 0 (curves.0.file).  The value, a scalar, is printed as it reads,
 * followed by a newline; with -t, the type a YAML 1.2 core-schema reader gives it
 * instead: str for a quoted scalar, else null, bool, int, float or str.  Exit status: 0 when all is well, 1 when the file is not one
 * such document or has no such scalar (a message on stderr), 2 for a usage error or a
 * file that cannot be opened. */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static const char *prog = "yaml_parse";

/* The type of scalar n under the YAML 1.2 core schema. */
static const char *core_type(const yaml_node_t *n)
{
  static const char *const types[][2] = {
      {"null", "^(~|null|Null|NULL)?$"},
      {"bool", "^(true|True|TRUE|false|False|FALSE)$"},
      {"int", "^([-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"},
      {"float", "^([-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN))$"},
  };
  if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
    return "str";
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    regex_t re;
    if (regcomp(&re, types[i][1], REG_EXTENDED | REG_NOSUB))
      return "(regcomp failed)";
    int match = regexec(&re, (const char *)n->data.scalar.value, 0, NULL, 0) == 0;
    regfree(&re);
    if (match)
      return types[i][0];
  }
  return "str";
}

/* The length of the longest key of mapping n that starts path and is followed by '.' or
 * the end, and its value; 0 when none. */
static size_t find_key(yaml_document_t *doc, yaml_node_t *n, const char *path, yaml_node_t **value)
{
  size_t best = 0;
  for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(doc, p->key);
    if (!k || k->type != YAML_SCALAR_NODE)
      continue;
    size_t len = k->data.scalar.length;
    if (len > best && strncmp(path, (const char *)k->data.scalar.value, len) == 0 &&
        (path[len] == '\0' || path[len] == '.')) {
      best = len;
      *value = yaml_document_get_node(doc, p->value);
    }
  }
  return best;
}

/* The node at the dotted path from n, or NULL. */
static yaml_node_t *lookup(yaml_document_t *doc, yaml_node_t *n, const char *path)
{
  while (n && *path) {
    size_t len;
    if (n->type == YAML_MAPPING_NODE) {
      yaml_node_t *v = NULL;
      len = find_key(doc, n, path, &v);
      if (len == 0)
        return NULL;
      n = v;
    } else if (n->type == YAML_SEQUENCE_NODE) {
      char *end;
      long i = strtol(path, &end, 10);
      len = (size_t)(end - path);
      if (len == 0 || (*end != '\0' && *end != '.') || i < 0 ||
          i >= n->data.sequence.items.top - n->data.sequence.items.start)
        return NULL;
      n = yaml_document_get_node(doc, n->data.sequence.items.start[i]);
    } else {
      return NULL;
    }
    path += len;
    if (*path == '.')
      path++;
  }
  return n;
}

int main(int argc, char **argv)
{
  int type = argc > 1 && strcmp(argv[1], "-t") == 0;
  argc -= type;
  argv += type;
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s [-t] FILE [KEY]\n", prog);
    return 2;
  }
  const char *name = argv[1];
  FILE *f = strcmp(name, "-") == 0 ? stdin : fopen(name, "rb");
  if (!f) {
    perror(name);
    return 2;
  }
  yaml_parser_t parser;
  yaml_document_t doc, next;
  int status = 1, have_doc = 0, have_next = 0;
  if (!yaml_parser_initialize(&parser)) {
    fprintf(stderr, "%s: out of memory\n", prog);
    return 2;
  }
  yaml_parser_set_input_file(&parser, f);
  if (!yaml_parser_load(&parser, &doc))
    goto error;
  have_doc = 1;
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  if (!root) {
    fprintf(stderr, "%s: %s: no document\n", prog, name);
    goto done;
  }
  if (root->type != YAML_MAPPING_NODE) {
    fprintf(stderr, "%s: %s: the root is not a mapping\n", prog, name);
    goto done;
  }
  /* the stream must end here: a second load gives an empty document */
  if (!yaml_parser_load(&parser, &next))
    goto error;
  have_next = 1;
  if (yaml_document_get_root_node(&next)) {
    fprintf(stderr, "%s: %s: more than one document\n", prog, name);
    goto done;
  }
  if (argc == 3) {
    yaml_node_t *v = lookup(&doc, root, argv[2]);
    if (!v || v->type != YAML_SCALAR_NODE) {
      fprintf(stderr, "%s: %s: no scalar at %s\n", prog, name, argv[2]);
      goto done;
    }
    if (type)
      fputs(core_type(v), stdout);
    else
      fwrite(v->data.scalar.value, 1, v->data.scalar.length, stdout);
    putchar('\n');
  }
  status = 0;
  goto done;
error:
  fprintf(stderr, "%s: %s:%lu:%lu: %s%s%s\n", prog, name, (unsigned long)parser.problem_mark.line + 1,
          (unsigned long)parser.problem_mark.column + 1, parser.context ? parser.context : "",
          parser.context ? ": " : "", parser.problem ? parser.problem : "not YAML");
done:
  if (have_next)
    yaml_document_delete(&next);
  if (have_doc)
    yaml_document_delete(&doc);
  yaml_parser_delete(&parser);
  if (f != stdin)
    fclose(f);
  if (fflush(stdout) || ferror(stdout))
    status = 1;
  return status;
}
