"""Model chat: human evaluation of dialogue models. A person chats with a registered model (an
OpenAI-compatible endpoint, a local checkpoint, a Python class or a built-in bot), after the Wizard
of Wikipedia or DuConv set-ups, and answers the campaign's questions at the end."""

NAME = "model_chat"  # Campaign.protocol of its campaigns, and its name on the command line
