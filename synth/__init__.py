"""EcoAgent-Syn: synthetic query generation, filtering and near-duplicate removal."""
