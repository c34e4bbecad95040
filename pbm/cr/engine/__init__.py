"""The Continental Rails II turn resolution engine: one module per part of Appendix A.

=====  ===========================================  ==========================
Step   What                                          Where
=====  ===========================================  ==========================
1–3    loans: tycoons, presidents, railroad debt     ``loans``
4      treasury stock to presidents                  ``treasury``
5      PC purchases and offers                       ``privates``
6      stock market (climate changes here)           ``market``, ``climate``
7      tycoon financial phase                        ``tycoons``
8      capital expenses                              ``capital``
9      construction                                  ``construction``
10     political influence                           ``politics``
11     rights-of-way, land grants, land sales        ``rights``
12     railroad mergers                              ``mergers``
13     operations, dividends, insolvency             ``operations``
14     tycoon final financial phase                  ``tycoons``
15     stock splits, elections                       ``elections``
16     victory points, end of turn                   ``victory``
=====  ===========================================  ==========================

``pbm.cr.resolve.resolve_turn`` calls them in order; ``checks`` verifies
conservation at the end of every turn.
"""
