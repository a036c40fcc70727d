"""Traces of each training stack's own code (issue 25): transformers' Trainer with PEFT and bitsandbytes, FSDP2,
torchtitan, torchtune and litgpt, on fake CPU tensors. Dev only: the app and its tests never import this."""
