/* The ISA-built halves of test_book_lanes: book_lanes_check.c (the books' lane form) and mtm_defer_check.c
 * (the deferred drawdown); each 0 when every lane matched its one-combo form. */
#ifndef HS_BOOK_LANES_CHECK_H
#define HS_BOOK_LANES_CHECK_H
int book_lanes_check(void);
int mtm_defer_check(void);
#endif
