"""Human evaluation of dialogue models: the `model_chat` protocol, registered models, the built-in
bots, model calls off the event loop, onboarding and the records analysis reads (selectors)."""
