"""What a config will cost before it runs: the model summary (layers, shapes, parameters, FLOPs) and the memory it
needs (weights, gradients, optimizer state, activations). Above config/; builds the model on the meta device or
the CPU, never trains."""
