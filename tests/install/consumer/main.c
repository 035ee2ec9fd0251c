/* Built against an installed libmkb: opens a compile-only session, evaluates the built-in suite's
 * solution of one problem, and prints the verdict. Exits 0 when the verdict is "compiled". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mkb.h>

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  FILE *f = fopen(argv[1], "rb");
  if (!f) return 2;
  static char source[1 << 20];
  size_t size = fread(source, 1, sizeof source, f);
  fclose(f);

  mkb_open_options options;
  mkb_open_options_init(&options, sizeof options);
  options.flags = MKB_OPEN_COMPILE_ONLY;
  mkb_session *session = NULL;
  if (mkb_open(&options, &session) != MKB_OK) {
    fprintf(stderr, "open: %s\n", mkb_session_errmsg(session));
    mkb_close(session);
    return 1;
  }
  mkb_report *report = NULL;
  mkb_status status = mkb_evaluate(session, "topk_softmax_routing_mixtral_8x7b_bf16", "cuda", source, size, &report);
  if (status != MKB_OK) {
    fprintf(stderr, "evaluate: %s: %s\n", mkb_status_name(status), mkb_session_errmsg(session));
    mkb_close(session);
    return 1;
  }
  printf("libmkb %s: %s", mkb_version(), mkb_report_message(report));
  int ok = mkb_report_verdict(report) == MKB_VERDICT_COMPILED;
  mkb_report_free(report);
  mkb_close(session);
  return ok ? 0 : 1;
}
