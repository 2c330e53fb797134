/* placeholder: replaced by tools/record-tails */
static const struct tail tails[] = { { "none", "x86_64", (const char *const[]){ NULL } } };
