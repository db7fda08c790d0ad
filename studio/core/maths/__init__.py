"""The pure maths the layers share: what the model's outputs mean (losses, sums), normalisation, evaluation
scores, scaling-law fits. No Qt, no processes."""
