/* SPDX-License-Identifier: Apache-2.0 */
/* rm_tree.h - removing a test's scratch tree, as rm -rf would. */
#ifndef FA_TEST_RM_TREE_H
#define FA_TEST_RM_TREE_H

/* Removes path and all below it, links not followed; 0, or -1 if anything stayed. */
int rm_tree(const char *path);

#endif
