"""Ground-truth peak-memory traces of LLM fine-tuning steps, for checking the VRAM Lab engine (dev only)."""
