/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Keeps the test helper library non-empty while suites land one by one. */
int scmpc_testutil_dummy;
