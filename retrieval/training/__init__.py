"""The collection retrains its own ranker: training examples from collected work (examples.py),
versioned models under var/ with a manifest (registry.py), and the retrain-evaluate-promote step
behind a lock (services.py). Run by `retrain_ranker` and the Celery beat task ranker_retrain;
nothing here runs on the chat path."""
