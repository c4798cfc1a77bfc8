"""The history step: the catalog month by month (the RATED paper's Figure 1) and every tool's first month."""
