"""The release as readers see it: the verified reader, integrity, the review-sample format, the MTEB task."""
