/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
#include "internal.h"
