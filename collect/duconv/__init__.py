"""DuConv (Wu et al., 2019): goal-driven chats over a knowledge graph — campaign config, automatic
goal completion, the competition's metrics and word segmentation for the exports."""
