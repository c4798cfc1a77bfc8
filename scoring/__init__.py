"""The score stage: reliability (RATED eq. 4-5), structural flaws, side-effect tier (POLAR),
permission scope, prompt cost, the opt-in online link check and doc enrichment, and the
great-expectations quality gate over the scored catalog."""
