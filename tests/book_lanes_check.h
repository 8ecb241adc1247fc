/* The ISA-built half of test_book_lanes (book_lanes_check.c): 0 when every lane matched the book. */
#ifndef HS_BOOK_LANES_CHECK_H
#define HS_BOOK_LANES_CHECK_H
int book_lanes_check(void);
#endif
