// SPDX-License-Identifier: GPL-2.0-or-later
/* contrib/marker-example.c, built here: objects under contrib/ of a build tree would be
 * swept into the tarball by EXTRA_DIST's "contrib". */
#include "../../contrib/marker-example.c"
